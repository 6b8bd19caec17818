import type { OpenAPIV3_1 } from 'openapi-types'
import { DATABASE_RETRY_AFTER, DATABASE_UNAVAILABLE } from '../http/errors.js'
import { BODY_SCHEMAS } from './bodies.js'
import { ENVELOPE_SCHEMAS } from './envelopes.js'

export const DESCRIPTION = `Kurz answers two interfaces with the same accounts, keys and links:

- the **management interface** under \`/api/...\`: JSON bodies; every answer carries \`error\`
  (0 on success, the string "0" on lists and queries; 1 on failure, with \`message\`);
- the **link interface v1** under \`/api/v1/links\` (and \`DELETE /links/{id}/destroy\`):
  form-encoded or JSON bodies; answers also carry \`status\`, and a validation failure is a 422
  with \`errors\` naming each field.

Every call sends \`Authorization: Bearer <API key>\` (\`Token <key>\` and a bare key work too).
Each key has a rate budget per window (\`RATE_LIMIT_MAX\` requests, 30 by default, on the management
interface and \`V1_RATE_LIMIT_MAX\`, 120 by default, on v1, per \`RATE_LIMIT_WINDOW\` seconds, 60 by
default): answers carry \`X-RateLimit-Limit\`, \`X-RateLimit-Remaining\` and \`X-RateLimit-Reset\`, and
a 429 carries \`Retry-After\`.

Operations tagged "Admin: …" need an admin's key ("Admin only." in their description); the
"Pages" are what visitors open in a browser: HTML pages, images and redirects, with no key.`

export const TAGS: OpenAPIV3_1.TagObject[] = [
  { name: 'Account', description: 'The account of the API key.' },
  { name: 'Links', description: 'Short links: create, list, read with statistics, change, delete.' },
  { name: 'Branded domains', description: 'Your own domains for short links.' },
  { name: 'Campaigns', description: 'Groups of links, with a public list and a rotator.' },
  { name: 'Channels', description: 'Folders for links, bio pages and QR codes.' },
  { name: 'Pixels', description: 'Tracking pixels fired on visits.' },
  { name: 'QR codes', description: 'QR codes and their images.' },
  { name: 'Splash pages', description: 'Pages shown before a redirect.' },
  { name: 'CTA overlays', description: 'Call-to-action overlays over framed links.' },
  { name: 'Admin: plans', description: 'Plans and their limits (admin keys only).' },
  { name: 'Admin: users', description: 'Users, their keys and login links (admin keys only).' },
  { name: 'Admin: blocklist', description: 'Domains and keywords no link may lead to, and releasing a quarantined link (admin keys only).' },
  { name: 'Admin: reports', description: 'Abuse reports visitors sent from a short link\'s report form (admin keys only).' },
  { name: 'Webhooks', description: 'Receivers of signed event notifications (link, QR code and click events), and their deliveries.' },
  { name: 'Links (v1 interface)', description: 'Link interface v1: the same links in its own shapes.' },
  { name: 'Operations', description: 'Health, readiness and this document. No key needed.' },
  { name: 'Pages', description: 'What visitors open: short links, QR images, campaign lists. No key needed.' },
]

const error = (extra: Record<string, unknown> = {}, required: string[] = []): OpenAPIV3_1.SchemaObject => ({
  type: 'object',
  required: ['error', 'message', ...required],
  properties: {
    error: { const: 1, description: 'always 1 on a failure' },
    message: { type: 'string', description: 'what went wrong, naming the field when one is at fault' },
    ...extra,
  },
})

const v1Status = { status: { type: 'integer', description: 'the HTTP status again' } }

const answer = (description: string, schema: string, example: unknown): OpenAPIV3_1.ResponseObject => ({
  description,
  content: { 'application/json': { schema: { $ref: `#/components/schemas/${schema}` }, example } },
})

const management = (status: number, description: string, message: string) =>
  answer(`${status}: ${description}`, 'Error', { error: 1, message })

/** An answer with several examples, one per cause. */
const answers = (description: string, schema: string, examples: Record<string, unknown>): OpenAPIV3_1.ResponseObject => ({
  description,
  content: {
    'application/json': {
      schema: { $ref: `#/components/schemas/${schema}` },
      examples: Object.fromEntries(Object.entries(examples).map(([name, value]) => [name, { value }])),
    },
  },
})
/** app.ts routerOptions.maxParamLength: the router refuses a longer parameter (http/errors.ts frameworkErrorHandler). */
const MAX_PARAM_LENGTH = 2048
const TOO_LONG = 'The path is too long: no id or alias is that long.'
const MALFORMED = 'The path holds a malformed %-escape: encode a literal % as %25.'
const v1 = (status: number, description: string, message: string) =>
  answer(`${status}: ${description}`, 'V1Error', { error: 1, message, status })

const page = (status: number, description: string, headers?: OpenAPIV3_1.ResponseObject['headers']): OpenAPIV3_1.ResponseObject => ({
  description: `${status}: ${description}`,
  ...(headers ? { headers } : {}),
  content: { 'text/html': { schema: { type: 'string' } } },
})
const retryAfter: OpenAPIV3_1.ResponseObject['headers'] = { 'Retry-After': { description: 'seconds to wait', schema: { type: 'integer' } } }

export const COMPONENTS = {
  securitySchemes: {
    metricsToken: { type: 'http', scheme: 'bearer', description: 'METRICS_TOKEN, for GET /metrics when it is set (not an API key).' },
    apiKey: {
      type: 'http',
      scheme: 'bearer',
      description: 'The API key of an account (the dashboard shows it; an admin reads it with GET /api/user/{id}).',
    },
  } as Record<string, OpenAPIV3_1.SecuritySchemeObject>,
  schemas: {
    Success: {
      type: 'object',
      required: ['error'],
      properties: { error: { enum: [0, '0'], description: '0 on success; the string "0" on lists and queries' } },
      additionalProperties: true,
    },
    V1Success: {
      type: 'object',
      required: ['error', 'status'],
      properties: { error: { enum: [0, '0'] }, ...v1Status },
      additionalProperties: true,
    },
    Error: error(),
    V1Error: error(v1Status, ['status']),
    V1ValidationError: error(
      { ...v1Status, errors: { type: 'object', additionalProperties: { type: 'array', items: { type: 'string' } }, description: 'messages per field' } },
      ['status', 'errors'],
    ),
    ...ENVELOPE_SCHEMAS,
    ...BODY_SCHEMAS,
  } as Record<string, OpenAPIV3_1.SchemaObject>,
  responses: {
    BadRequest: answers('400: the input is not valid (a field, a query or path value), or the path holds a malformed %-escape', 'Error', {
      field: { error: 1, message: 'url: must be an absolute URL starting with http:// or https://.' },
      path: { error: 1, message: MALFORMED },
    }),
    UserDeleteRefused: answers('400: the id is your own account, or the path holds a malformed %-escape', 'Error', {
      self: { error: 1, message: 'You cannot delete your own account.' },
      path: { error: 1, message: MALFORMED },
    }),
    Unauthorized: management(401, 'no API key, or not a valid one', 'A valid API key is required: send Authorization: Bearer <key>.'),
    Forbidden: management(403, 'the plan or the role does not allow it', 'Your plan does not include the "api" feature: API access is switched off.'),
    NotFound: management(404, 'no object of yours has that id', 'Link not found.'),
    Conflict: management(409, 'taken: an alias, slug or domain already in use', 'custom: "spring" is already taken on that domain; choose another alias.'),
    PayloadTooLarge: management(413, 'the body is over 1 MiB', 'Request body is too large: the limit is 1 MiB.'),
    UnsupportedMediaType: management(415, 'the body is not JSON', 'Unsupported Content-Type "text/html": send application/json.'),
    ImportTooLarge: management(413, 'the file is over 20 MiB', 'Request body is too large: the limit for an import is 20 MiB; npm run cli -- import takes a file of any size.'),
    ImportUnsupportedMediaType: management(415, 'the file is neither text/csv nor application/json', 'Unsupported Content-Type "application/x-www-form-urlencoded": send the file as text/csv or application/json.'),
    RateLimited: management(
      429,
      'rate budget spent (RATE_LIMIT_MAX requests, 30 by default, per RATE_LIMIT_WINDOW seconds, 60 by default): retry after Retry-After seconds',
      'Rate limit exceeded: at most 30 requests per 1 minute. Retry in 42 seconds.',
    ),
    V1BadRequest: v1(400, 'the path holds a malformed %-escape', MALFORMED),
    V1Unauthorized: v1(401, 'no API key, or not a valid one', 'A valid API key is required: send Authorization: Bearer <key>.'),
    V1Forbidden: v1(403, 'the plan or the role does not allow it', 'Your plan does not include the "api" feature: API access is switched off.'),
    V1NotFound: v1(404, 'no link of yours has that id', 'Link not found.'),
    V1Invalid: answer('422: the input is not valid; `errors` names each field', 'V1ValidationError', {
      error: 1,
      message: 'url: must be an absolute URL starting with http:// or https://.',
      errors: { url: ['url: must be an absolute URL starting with http:// or https://.'] },
      status: 422,
    }),
    V1PayloadTooLarge: v1(413, 'the body is over 1 MiB', 'Request body is too large: the limit is 1 MiB.'),
    V1UnsupportedMediaType: v1(415, 'the body is neither form-encoded nor JSON', 'Unsupported Content-Type: send application/x-www-form-urlencoded (or application/json).'),
    MetricsUnauthorized: management(401, 'METRICS_TOKEN is set and the request did not send it', 'GET /metrics needs Authorization: Bearer <METRICS_TOKEN>.'),
    ReportRefused: page(400, 'no reason chosen, details too long or holding control characters: the form again, saying what to fix'),
    PageNotFound: page(404, 'no link has that alias (the not-found page)'),
    ReportsThrottled: page(429, 'more than 5 reports from this address in an hour, or more than 60 from everyone in a minute'),
    UriTooLong: management(414, `a path parameter is over ${MAX_PARAM_LENGTH} characters`, TOO_LONG),
    V1UriTooLong: v1(414, `a path parameter is over ${MAX_PARAM_LENGTH} characters`, TOO_LONG),
    DatabaseAway: page(
      503,
      `the database is not reachable and what the visit needs is not in this instance's cache: a page saying to try again shortly (Retry-After: ${DATABASE_RETRY_AFTER})`,
      retryAfter,
    ),
    DatabaseUnavailable: { ...management(503, `the database is not reachable: retry after Retry-After seconds (${DATABASE_RETRY_AFTER})`, DATABASE_UNAVAILABLE), headers: retryAfter },
    V1DatabaseUnavailable: { ...v1(503, `the database is not reachable: retry after Retry-After seconds (${DATABASE_RETRY_AFTER})`, DATABASE_UNAVAILABLE), headers: retryAfter },
    V1RateLimited: v1(
      429,
      'rate budget spent (V1_RATE_LIMIT_MAX requests, 120 by default, per RATE_LIMIT_WINDOW seconds, 60 by default): retry after Retry-After seconds',
      'Rate limit exceeded: at most 120 requests per 1 minute. Retry in 42 seconds.',
    ),
    Redirect: {
      description: '3xx: a redirect to the destination in Location (no body)',
      headers: { Location: { description: 'where the visitor goes', required: true, schema: { type: 'string', format: 'uri' } } },
    },
    NotModified: { description: '304: the image has not changed since the ETag sent in If-None-Match' },
    ImageRefused: management(400, 'a size (in the path or the query), a format or a colour that is not valid', 'size must be a whole number of pixels from 64 to 1024.'),
    LinkExpired: page(410, 'the link has expired (by date or clicks) and has no expiration URL'),
    LinkQuarantined: page(451, 'a blocklist entry matched the link: a warning page, with no link to the destination'),
    PasswordWrong: page(401, 'the password is not right: the form again, saying so'),
    PasswordsThrottled: page(429, 'five wrong passwords from this address for this link in 15 minutes: the form again, saying when to retry', retryAfter),
    PasswordsBusy: page(503, 'too many passwords are being checked right now: the form again, saying to retry', retryAfter),
    ImagesThrottled: page(429, 'this address asked for too many different QR images in the last minute', retryAfter),
  } as Record<string, OpenAPIV3_1.ResponseObject>,
}
