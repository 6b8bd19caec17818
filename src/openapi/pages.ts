import type { OpenAPIV3_1 } from 'openapi-types'

/*
 * What the Pages (the paths visitors open, kind 'pages' in document.ts) answer: HTML pages,
 * images and redirects, never the JSON envelope (but a refused image size or colour). Keys are
 * "METHOD /openapi/path"; a page route missing here is documented as an HTML page.
 */

type Answer = OpenAPIV3_1.ResponseObject | OpenAPIV3_1.ReferenceObject
type Answers = Record<string, Answer>

const ref = (name: string, description?: string): Answer =>
  // OpenAPI 3.1: a description beside a $ref says what the shared answer means here
  ({ $ref: `#/components/responses/${name}`, ...(description ? { description } : {}) }) as Answer

const html = (description: string): Answer => ({ description: `200: ${description}`, content: { 'text/html': { schema: { type: 'string' } } } })

/** A link's redirect: its own `redirectstatus`, else REDIRECT_STATUS (302 by default). */
const linkRedirects = (also: string): Answers => ({
  301: ref('Redirect', "301: when the link's redirectstatus (or REDIRECT_STATUS) is 301"),
  302: ref('Redirect', `302: the default REDIRECT_STATUS, or the link's redirectstatus; also ${also}`),
  307: ref('Redirect', "307: when the link's redirectstatus (or REDIRECT_STATUS) is 307"),
  308: ref('Redirect', "308: when the link's redirectstatus (or REDIRECT_STATUS) is 308"),
})

const visitPage = "the link's splash, frame, overlay or pixel page, its password form, or the preview page a social network's fetcher gets"
const notFound = ref('PageNotFound', '404: no link has that alias, or the link is disabled (the not-found page)')
const expired = ref('LinkExpired')
const quarantined = ref('LinkQuarantined')
const passwordAnswers: Answers = {
  401: ref('PasswordWrong'),
  429: ref('PasswordsThrottled'),
  // a form post can meet either 503: the argon2 queue full, or the database away
  503: ref(
    'PasswordsBusy',
    '503: too many passwords are being checked right now (the form again, saying to retry), or the database is not reachable (a page saying to try again shortly); Retry-After either way',
  ),
}

const image: Answers = {
  200: {
    description: '200: the image (PNG, or SVG with format=svg), with an ETag',
    content: { 'image/png': { schema: { type: 'string', format: 'binary' } }, 'image/svg+xml': { schema: { type: 'string' } } },
  },
  304: ref('NotModified'),
  400: ref('ImageRefused'),
  404: ref('PageNotFound', '404: no QR code or link has that alias (the not-found page)'),
  429: ref('ImagesThrottled'),
}

const passwordForm = (extra: Record<string, unknown> = {}) => ({
  required: true,
  content: {
    'application/x-www-form-urlencoded': {
      type: 'object',
      required: ['password'],
      properties: { password: { type: 'string', maxLength: 1024 }, ...extra },
    },
  },
})

type Page = { responses: Answers; body?: ReturnType<typeof passwordForm> }

const LISTED: Record<string, Page> = {
  'GET /': {
    responses: { 200: html('the home page'), 302: ref('Redirect', "302: on a branded domain with a redirectroot, to it") },
  },
  'GET /{alias}': {
    responses: {
      200: html(`${visitPage}; for \`/{alias}+\`, the statistics page or its password form`),
      ...linkRedirects("an expired link's expiration URL, and an unknown alias on a branded domain with a redirect404"),
      404: ref('PageNotFound', '404: no link has that alias, or the link is disabled (for `/{alias}+`: or private) (the not-found page)'),
      410: expired,
      451: quarantined,
    },
  },
  'POST /{alias}': {
    body: passwordForm({ ref: { type: 'string', description: 'the referrer of the visit the form was shown for' } }),
    responses: {
      200: html(`the right password: ${visitPage.replace(', its password form', '')}; for \`/{alias}+\`, the statistics page`),
      ...linkRedirects("an expired link's expiration URL"),
      ...passwordAnswers,
      404: notFound,
      410: expired,
      451: quarantined,
    },
  },
  'GET /r/{slug}': {
    responses: {
      200: html(`one of the campaign's active links: ${visitPage}`),
      302: ref('Redirect', "302: to one of the campaign's active links, picked at random"),
      404: ref('PageNotFound', '404: no campaign has that rotator, or none of its links is active'),
      410: ref('LinkExpired', '410: the link picked reached its click cap meanwhile and has no expiration URL'),
    },
  },
  'POST /r/{slug}': {
    body: passwordForm({ link: { type: 'string', description: 'the id of the link the form was shown for' } }),
    responses: {
      200: html(visitPage.replace(', its password form', '')),
      302: ref('Redirect', '302: the right password: to the link'),
      ...passwordAnswers,
      404: notFound,
    },
  },
  'GET /u/{username}/{id}': {
    responses: { 200: html("the campaign's links (short URL and title), 100 a page"), 404: ref('PageNotFound', '404: no public campaign of that user has that id') },
  },
  'GET /qr/{alias}': { responses: image },
  'GET /qr/{alias}/{size}': { responses: image },
  'GET /{alias}/qr': { responses: image },
  'GET /{alias}/qr/{size}': { responses: image },
  'GET /q/{alias}': {
    responses: {
      200: { description: '200: the contact card of a vcard code', content: { 'text/vcard': { schema: { type: 'string' } } } },
      302: ref('Redirect', "302: to the code's target (its URL, or a mailto:, tel: or sms: URI)"),
      404: ref('PageNotFound', '404: no QR code has that alias, or it is a text or wifi code (nothing to scan to)'),
    },
  },
  'GET /{alias}/report': { responses: { 200: html('the report form'), 404: notFound } },
  'POST /{alias}/report': { responses: { 200: html('thanks: the report is stored for the admins, unless its link already has 20 waiting') } },
}

/** Every page reads the database for what its cache lacks: while the database is away, a 503 page (http/errors.ts). */
const withOutage = (responses: Answers): Answers => ({ ...responses, 503: responses[503] ?? ref('DatabaseAway') })

export const PAGES: Record<string, Page> = Object.fromEntries(Object.entries(LISTED).map(([key, page]) => [key, { ...page, responses: withOutage(page.responses) }]))

/** A page route not listed above. */
export const DEFAULT_PAGE: Answers = withOutage({ 200: html('a page') })
