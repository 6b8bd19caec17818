import type { FastifySchemaCompiler, FastifyTypeProvider } from 'fastify'
import type { z } from 'zod'
import { ApiError, zodToApiError } from './errors.js'

/**
 * Zod schemas as Fastify route schemas. A failing body or query becomes an ApiError naming the
 * field; a failing path parameter names no object, so it is a 404 (DECISIONS §2).
 */
export const validatorCompiler: FastifySchemaCompiler<z.ZodType> =
  ({ schema, httpPart }) =>
  (data) => {
    // A JSON content type with an empty body (real clients send it on DELETE and assign) is {}.
    const input = httpPart === 'body' && (data === undefined || data === null) ? {} : data
    const result = schema.safeParse(input)
    if (result.success) return { value: result.data }
    if (httpPart === 'params') return { error: new ApiError(404, 'Not found: no object has that id.') }
    // a body that is a string, number or list fails as a whole: zod's "expected object, received string" names nothing to fix
    if (httpPart === 'body' && result.error.issues.some((i) => i.path.length === 0 && i.code === 'invalid_type')) {
      return { error: new ApiError(400, 'The request body must be a JSON object of fields, not a string, a number or a list.') }
    }
    return { error: httpPart === 'querystring' ? queryError(result.error, input) : zodToApiError(result.error) }
  }

export interface ZodTypeProvider extends FastifyTypeProvider {
  validator: this['schema'] extends z.ZodType ? z.output<this['schema']> : unknown
  serializer: this['schema'] extends z.ZodType ? z.input<this['schema']> : unknown
}

/**
 * A refused query string: `?limit=1&limit=2` arrives as a list, and "limit must be a whole number"
 * would not say what is wrong, so a scalar given more than once says that instead.
 */
export function queryError(error: z.ZodError, query: unknown): ApiError {
  const given = query && typeof query === 'object' ? (query as Record<string, unknown>) : {}
  const repeated = error.issues.find((i) => i.code === 'invalid_type' && i.expected !== 'array' && i.path.length === 1 && Array.isArray(given[String(i.path[0])]))
  if (!repeated) return zodToApiError(error)
  const message = `${String(repeated.path[0])} must be given once, not as a list.`
  return new ApiError(400, message, { [String(repeated.path[0])]: [message] })
}
