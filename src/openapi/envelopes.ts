import { INT, NULLABLE_INT, NULLABLE_STRING, STRING, array, object, ref } from './body-types.js'

/*
 * The envelope of each success answer around its payload (bodies.ts), as the handlers send it:
 * `error` (0, or "0" on lists and queries), `message` on writes, the payload under `data` or beside
 * `error`, the paging of management lists; on v1 also `status`. examples.ts gives each operation
 * its envelope as `schema`; document.ts puts it in the operation's success answer.
 */

type Schema = Record<string, unknown>

const OK: Schema = { const: 0 }
/** Lists and queries answer the string (SPEC.md); COMPAT_LIST_ERROR=number makes it the number. */
const LIST_OK: Schema = { enum: ['0', 0], description: '"0" (0 with COMPAT_LIST_ERROR=number)' }

/** `{error: 0, ...fields}`; every field required unless `optional` names it. */
export const done = (fields: Record<string, Schema> = {}, optional: string[] = []): Schema =>
  object({ error: OK, ...fields }, undefined, ['error', ...Object.keys(fields).filter((k) => !optional.includes(k))])

/** `{error: 0, message}`: most changes and deletions. */
export const MESSAGE = ref('Message')

/** `{error: 0, data: <payload>}` */
export const withData = (payload: Schema | string, extra: Record<string, Schema> = {}) => done({ ...extra, data: typeof payload === 'string' ? ref(payload) : payload })

/** The single link form (SPEC.md), under `error` 0 or, when found by `short`, "0". */
export const singleLink = (error: 'list' | 'one' = 'one') =>
  object({ error: error === 'list' ? LIST_OK : OK, id: INT, details: ref('LinkDetails'), data: ref('LinkStats') })

/** A management list: `{error: "0", data: {result, perpage, currentpage, nextpage, maxpage, <key>: [...]}}`. */
export const list = (key: string, item: string): Schema =>
  object({
    error: LIST_OK,
    data: object(
      {
        result: { ...INT, description: 'how many there are in all' },
        perpage: INT,
        currentpage: INT,
        nextpage: { ...INT, description: 'maxpage on the last page' },
        maxpage: INT,
        [key]: array(ref(item)),
      },
      'a page of the list, with its paging',
    ),
  })

/** An admin list that is a plain array (`GET /api/plans`, `GET /api/users`). */
export const plainList = (item: string): Schema => object({ error: LIST_OK, data: array(ref(item)) })

const V1_ERROR_KEY = 'With COMPAT_V1=phpshort the answer has no `error`.'

/** v1: `{error: 0, data, status}`. */
export const v1 = (status: 200 | 201, fields: Record<string, Schema> = { data: ref('V1Link') }): Schema => ({
  ...object({ error: OK, ...fields, status: { const: status } }),
  description: V1_ERROR_KEY,
})

/** v1's list, in Laravel's paginator shape. */
export const V1_LIST: Schema = {
  ...object({
    error: LIST_OK,
    data: array(ref('V1Link')),
    links: object({ first: STRING, last: STRING, prev: NULLABLE_STRING, next: NULLABLE_STRING }),
    meta: object({ current_page: INT, from: NULLABLE_INT, last_page: INT, path: STRING, per_page: INT, to: NULLABLE_INT, total: INT }),
    status: { const: 200 },
  }),
  description: V1_ERROR_KEY,
}

export const V1_DELETED = v1(200, { id: INT, object: { const: 'link' }, deleted: { const: true }, message: STRING })

/** Named envelope schemas, in components.schemas beside the payloads. */
export const ENVELOPE_SCHEMAS: Record<string, Schema> = {
  Message: object({ error: OK, message: STRING }, 'A change or deletion done: `message` says what.'),
}
