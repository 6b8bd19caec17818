import type { OpenAPIV3_1 } from 'openapi-types'
import { CHANNEL_ITEM_TYPES, QR_TYPES, WEBHOOK_EVENTS } from '../db/schema/index.js'
import { REPORT_REASONS } from '../resources/reports/page.js'
import { v1Body } from './v1-form.js'
import { INT, STRING, array, object, ref } from './body-types.js'
import { MESSAGE, V1_DELETED, V1_LIST, done, list, plainList, singleLink, v1, withData } from './envelopes.js'

/*
 * What the route schemas cannot say: a summary per known operation, the success answer of the
 * main endpoints (taken from real responses of this server), and the few inputs a handler reads
 * itself. Keys are "METHOD /openapi/path". A route missing here is still documented, from its
 * schema alone.
 */

export interface OperationNotes {
  summary?: string
  description?: string
  /** success status when it is not 200 */
  status?: number
  example?: unknown
  /** the success body's schema (envelopes.ts over bodies.ts); the generic envelope when absent */
  schema?: Record<string, unknown>
  /** query parameters the handler parses itself (not in its route schema) */
  query?: Record<string, Record<string, unknown>>
  /** a request body to show instead of the generated one */
  requestExample?: unknown
  /** request body of a handler that reads its own body: a schema per media type it takes (and how a form encodes its fields) */
  body?: {
    content: Record<string, Record<string, unknown>>
    description?: string
    required?: boolean
    encoding?: Record<string, Record<string, OpenAPIV3_1.EncodingObject>>
  }
  /** what the route schema says too loosely: merged into the named body fields and path or query parameters */
  fields?: Record<string, Record<string, unknown>>
  params?: Record<string, Record<string, unknown>>
  /** body fields the handler requires though its schema lets them be absent */
  requires?: string[]
  /** the tag, when it is not the one of the path's resource */
  tag?: string
  /** answers written out whole (status → OpenAPI response object), over the generated ones */
  responses?: Record<string, Record<string, unknown>>
  /** media type of the success answer when it is not JSON (a file); `example` is then its text */
  produces?: string
  /** failure answers of this operation that differ from the generated ones: status → components.responses name */
  failures?: Record<number, string>
  /** who may call an operation that takes no API key, where someone may (the metrics token) */
  security?: Record<string, string[]>[]
}

const ts = '2030-01-15 09:30:00'
const short = 'https://sho.rt/spring'
const pageData = { result: 1, perpage: 15, currentpage: 1, nextpage: 1, maxpage: 1 }
const deleted = (what: string) => ({ error: 0, message: `${what} has been deleted successfully.` })
const updated = (what: string) => ({ error: 0, message: `${what} has been updated successfully.` })

const v1Link = {
  id: 7, alias: 'spring', url: 'https://example.com/spring-sale', short_url: short, title: '', target_type: 0,
  country_target: null, platform_target: null, language_target: null, rotation_target: null, last_rotation: 0,
  disabled: 0, privacy: 0, privacy_password: false, password: false, expiration_url: null, expiration_clicks: null,
  clicks: 0, user_id: 1, space: null, domain: null, pixels: [], ends_at: null, created_at: ts, updated_at: ts,
}

const qrData = {
  type: ['string', 'object'],
  description: 'what the code holds: a string (the text, URL, vCard, e-mail address, phone number, SMSTO: or WIFI: string), or an object whose fields depend on `type`',
}
const qrType = { enum: [...QR_TYPES] }
const events = { items: { enum: [...WEBHOOK_EVENTS] } }
const statusBody = (value: string, extra: Record<string, unknown> = {}) => ({ type: 'object', required: ['status'], properties: { status: { const: value }, ...extra } })

export const NOTES: Record<string, OperationNotes> = {
  'GET /api/account': {
    schema: withData('Account'),
    summary: 'Your account',
    example: { error: 0, data: { id: 1, email: 'ada@example.com', username: 'ada', avatar: 'https://www.gravatar.com/avatar/…?d=identicon', status: 'pro', expires: null, registered: ts } },
  },
  // its summary and description are in the route's own schema
  'GET /api/account/stats': { schema: withData('AccountStats') },
  'GET /api/account/usage': {
    schema: withData('AccountUsage'),
    summary: 'What your account uses of its plan',
    description: 'Links owned, detailed clicks recorded this calendar month (UTC), days of click detail kept, and the counted features (branded domains, pixels, splash pages, CTA overlays), each against the plan\'s cap (0: no cap). A create beyond a cap is refused with 403.',
    example: {
      error: 0,
      data: {
        plan: { id: 1, name: 'Free' },
        links: { used: 12, limit: 1000 },
        clicks: { month: '2030-01', used: 340, limit: 0 },
        retention: 90,
        domain: { enabled: true, used: 1, limit: 5 },
        pixels: { enabled: true, used: 0, limit: 5 },
        splash: { enabled: true, used: 2, limit: 5 },
        overlay: { enabled: true, used: 0, limit: 5 },
      },
    },
  },
  'PUT /api/account/update': { schema: MESSAGE, summary: 'Change your email or password', example: updated('Account') },
  'GET /api/account/apikey': { schema: done({ apikey: STRING }), summary: 'Your current API key', example: { error: 0, apikey: '…' } },
  'POST /api/account/apikey': {
    schema: done({ message: STRING, apikey: STRING }),
    summary: 'Issue a new API key (the old one stops working)',
    example: { error: 0, message: 'A new API key has been issued; the previous key no longer works.', apikey: '…' },
  },

  'GET /api/urls': {
    schema: { oneOf: [list('urls', 'LinkListItem'), singleLink('list')] },
    summary: 'Your links, or one link by its short URL',
    description: 'With `short`, every other parameter is ignored and the answer is the single link form of `GET /api/url/{id}`.',
    query: {
      limit: { type: 'integer', minimum: 1, default: 15 },
      page: { type: 'integer', minimum: 1, default: 1 },
      order: { type: 'string', enum: ['date', 'click'] },
      q: { type: 'string', description: 'keyword search over links' },
    },
    example: {
      error: '0',
      data: { ...pageData, urls: [{ id: 1, alias: 'spring', shorturl: short, longurl: 'https://example.com/spring-sale', clicks: 42, title: '', description: '', date: ts }] },
    },
  },
  'GET /api/url/{id}': {
    schema: singleLink(),
    summary: 'One link with its statistics',
    example: {
      error: 0,
      id: 1,
      details: { id: 1, shorturl: short, longurl: 'https://example.com/spring-sale', title: '', description: '', location: {}, device: {}, expiry: null, date: ts },
      data: { clicks: 42, uniqueClicks: 30, topCountries: 0, topReferrers: 0, topBrowsers: 0, topOs: 0, socialCount: { facebook: 0, twitter: 0, google: 0 }, botClicks: 0 },
    },
  },
  'POST /api/url/add': {
    schema: done({ id: INT, shorturl: STRING, short: STRING }),
    summary: 'Shorten a URL',
    requestExample: { url: 'https://example.com/spring-sale', custom: 'spring', status: 'public', geotarget: [{ location: 'Germany', link: 'https://example.de/fruehling' }] },
    example: { error: 0, id: 1, shorturl: short, short },
  },
  'GET /api/url/{id}/stats': { schema: withData('StatsSeries'), summary: 'Clicks of a link over time, with range totals and top lists' },
  'GET /api/urls/health': { schema: withData(object({ health: array(ref('LinkHealthItem')) })), summary: 'Health of the long URLs of several of your links, and whether each is quarantined' },
  'POST /api/url/{id}/check': { schema: { allOf: [ref('LinkHealth'), withData('LinkHealth')] }, summary: "Check a link's long URL now" },
  'POST /api/url/{id}/resolve': { schema: withData('Resolved'), summary: 'What a visit by the visitor described would get (a dry run: nothing is recorded)' },
  'DELETE /api/url/{id}/alias/{alias}': { schema: MESSAGE, summary: 'Release an earlier alias of a link: it stops leading to the link and is free again' },
  'POST /api/url/{id}/release': { schema: MESSAGE, summary: "Lift a link's quarantine (any account's link)", tag: 'Admin: blocklist' },
  'PUT /api/url/{id}/update': { schema: done({ id: INT, short: STRING }), summary: 'Change a link (fields not sent are kept)', example: { error: 0, id: 1, short } },
  'DELETE /api/url/{id}/delete': { schema: MESSAGE, summary: 'Delete a link and its clicks', example: deleted('Link') },

  'GET /api/urls/export': {
    summary: 'Your links as a CSV file',
    description: 'Needs the plan\'s `export` feature. Streamed, oldest first. A cell that starts with `=`, `+`, `-`, `@`, a tab or a carriage return gets a leading `\'` (a spreadsheet shows it as text); an import with `format=csv` takes it off again.',
    produces: 'text/csv',
    example: `id,alias,shorturl,longurl,title,description,clicks,uniqueClicks,date,domain,campaign,channels,expiry\r\n1,spring,${short},https://example.com/spring-sale,Spring sale,,42,30,${ts},https://sho.rt,,,\r\n`,
  },
  'GET /api/url/{id}/clicks/export': {
    summary: 'The click rows of a link as a CSV file',
    description: 'Needs the plan\'s `export` feature. `from` and `to` are days (UTC), `to` included. Never an IP address.',
    produces: 'text/csv',
    example: `date,country,referrer,browser,os,device,language,bot\r\n${ts},DE,news.example.org,Chrome,Windows,,de,0\r\n`,
  },
  'POST /api/urls/import': {
    schema: done({ imported: INT, skipped: INT, errors: array(object({ line: { ...INT, description: '0 on the line counting the rows not listed' }, message: STRING })) }),
    summary: 'Create links from an export file (Kurz, Bitly, YOURLS, Shlink, Kutt)',
    description:
      'The file is the request body, up to 20 MiB (`npm run cli -- import` takes any size). Every row goes through the rules of `POST /api/url/add`; an alias already taken is skipped, never overwritten. `errors` lists refused and skipped rows by line. One import at a time per account: another sent while one runs is a 409, refused before its file is read.',
    body: {
      required: true,
      description: 'The export file, up to 20 MiB.',
      content: {
        'text/csv': { type: 'string', description: 'a CSV export with a header line (comma, semicolon or tab separated), or one URL per line' },
        'application/json': { type: ['array', 'object'], description: 'a JSON export: a list of links, or the product\'s answer around one' },
      },
    },
    failures: { 413: 'ImportTooLarge', 415: 'ImportUnsupportedMediaType' },
    example: { error: 0, imported: 2, skipped: 1, errors: [{ line: 4, message: 'custom: "handbook" is already taken on that domain; choose another alias. Skipped.' }] },
  },

  'GET /api/domains': { schema: list('domains', 'Domain'), summary: 'Your branded domains', example: { error: '0', data: { ...pageData, domains: [{ id: 1, domain: 'https://go.example.com', redirectroot: '', redirect404: '' }] } } },
  'POST /api/domain/add': { schema: done({ id: INT }), summary: 'Add a branded domain', example: { error: 0, id: 1 } },
  'PUT /api/domain/{id}/update': { schema: MESSAGE, summary: 'Change a branded domain' },
  'DELETE /api/domain/{id}/delete': { schema: MESSAGE, summary: 'Delete a branded domain' },

  'GET /api/campaigns': { schema: list('campaigns', 'Campaign'), summary: 'Your campaigns' },
  'POST /api/campaign/add': {
    schema: { allOf: [done(), ref('Campaign')] },
    summary: 'Create a campaign',
    example: { error: 0, id: 1, name: 'Spring', domain: 'Spring', public: true, rotator: 'https://sho.rt/r/spring-sale', list: 'https://sho.rt/u/ada/1' },
  },
  'POST /api/campaign/{campaignid}/assign/{linkid}': { schema: MESSAGE, summary: 'Put a link in a campaign' },
  'PUT /api/campaign/{id}/update': { schema: { allOf: [done(), ref('Campaign')] }, summary: 'Change a campaign' },
  'DELETE /api/campaign/{id}/delete': { schema: MESSAGE, summary: 'Delete a campaign' },

  'GET /api/channels': { schema: list('channels', 'Channel'), summary: 'Your channels' },
  'GET /api/channel/{id}': { schema: list('items', 'ChannelItem'), summary: 'The items of a channel' },
  'POST /api/channel/add': {
    schema: { allOf: [done(), ref('Channel')] },
    summary: 'Create a channel',
    example: { error: 0, id: 1, name: 'Newsletter', description: '', color: '#2554c7', starred: false },
  },
  'POST /api/channel/{channelid}/assign/{type}/{itemid}': {
    schema: MESSAGE,
    summary: 'Put a link, bio page or QR code in a channel',
    params: { type: { enum: [...CHANNEL_ITEM_TYPES], description: 'what `itemid` names' } },
  },
  'PUT /api/channel/{id}/update': { schema: MESSAGE, summary: 'Change a channel' },
  'DELETE /api/channel/{id}/delete': { schema: MESSAGE, summary: 'Delete a channel (its items are unassigned)' },

  'GET /api/pixels': { schema: list('pixels', 'Pixel'), summary: 'Your tracking pixels' },
  'POST /api/pixel/add': { schema: done({ id: INT }), summary: 'Add a tracking pixel', example: { error: 0, id: 1 } },
  'PUT /api/pixel/{id}/update': { schema: MESSAGE, summary: 'Change a tracking pixel' },
  'DELETE /api/pixel/{id}/delete': { schema: MESSAGE, summary: 'Delete a tracking pixel' },

  'GET /api/qr': {
    schema: list('qrs', 'QrCode'),
    summary: 'Your QR codes',
    example: { error: '0', data: { ...pageData, qrs: [{ id: 1, link: 'https://sho.rt/qr/JsF7Vl', scans: 0, name: 'link 2030-01-15', date: ts }] } },
  },
  'GET /api/qr/{id}': { schema: done({ details: ref('QrCode'), data: ref('QrStats') }), summary: 'One QR code' },
  'GET /api/qr/{id}/design': { schema: withData('QrDesign'), summary: 'What a QR code was made from (type, data, colours, name), for an editor' },
  'GET /api/qr/{id}/stats': { schema: withData('StatsSeries'), summary: 'Scans of a QR code over time, with range totals and top lists' },
  'POST /api/qr/add': {
    schema: done({ id: INT, link: STRING }),
    summary: 'Create a QR code',
    fields: { type: qrType, data: qrData },
    requires: ['data'],
    example: { error: 0, id: 1, link: 'https://sho.rt/qr/JsF7Vl' },
  },
  'PUT /api/qr/{id}/update': { schema: MESSAGE, summary: 'Change a QR code (data is sent again; the type may change)', fields: { type: qrType, data: qrData }, requires: ['data'] },
  'DELETE /api/qr/{id}/delete': { schema: MESSAGE, summary: 'Delete a QR code' },

  'GET /api/splash': { schema: list('splash', 'SplashItem'), summary: 'Your splash pages' },
  'GET /api/splash/{id}': { schema: withData('Splash'), summary: 'One splash page' },
  'POST /api/splash/add': { schema: done({ id: INT }), summary: 'Create a splash page' },
  'PUT /api/splash/{id}/update': { schema: MESSAGE, summary: 'Change a splash page' },
  'DELETE /api/splash/{id}/delete': { schema: MESSAGE, summary: 'Delete a splash page (its links become direct)' },
  'GET /api/overlay': { schema: list('cta', 'OverlayItem'), summary: 'Your CTA overlays' },
  'GET /api/overlay/{id}': { schema: withData('Overlay'), summary: 'One CTA overlay' },
  'POST /api/overlay/add': { schema: done({ id: INT }), summary: 'Create a CTA overlay' },
  'PUT /api/overlay/{id}/update': { schema: MESSAGE, summary: 'Change a CTA overlay' },
  'DELETE /api/overlay/{id}/delete': { schema: MESSAGE, summary: 'Delete a CTA overlay and its responses (its links become direct)' },
  'GET /api/overlay/{id}/responses': { schema: list('responses', 'OverlayResponse'), summary: 'Contact-form submissions and poll votes of an overlay' },

  'GET /api/webhooks': { schema: list('webhooks', 'Webhook'), summary: 'Your webhooks' },
  'POST /api/webhook/add': { schema: { allOf: [done(), ref('Webhook')] }, summary: 'Add a webhook: a receiver URL and the events it gets', fields: { events } },
  'GET /api/webhook/{id}': { schema: withData('Webhook'), summary: 'One webhook, with its signing secret' },
  'PUT /api/webhook/{id}/update': { schema: MESSAGE, summary: 'Change a webhook, enable it again or rotate its secret', fields: { events } },
  'DELETE /api/webhook/{id}/delete': { schema: MESSAGE, summary: 'Delete a webhook and its deliveries' },
  'GET /api/webhook/{id}/deliveries': { schema: list('deliveries', 'Delivery'), summary: 'What a webhook sent, newest first, with attempts and answers' },
  'POST /api/webhook/{id}/deliveries/{deliveryId}/retry': { schema: MESSAGE, summary: 'Attempt a delivery again now' },

  'GET /api/blocklist': { schema: list('entries', 'BlocklistEntry'), summary: 'Blocklist entries (admin)' },
  'POST /api/blocklist/add': { schema: done({ id: INT, data: ref('BlocklistEntry'), message: STRING }), summary: 'Add a domain or keyword to the blocklist; links that match are quarantined (admin)' },
  'DELETE /api/blocklist/{id}/delete': { schema: MESSAGE, summary: 'Delete a blocklist entry; links it quarantined stay so until released (admin)' },
  'GET /api/reports': { schema: list('reports', 'Report'), summary: 'Abuse reports from visitors (admin)' },
  'DELETE /api/reports/{id}/delete': { schema: MESSAGE, summary: 'Dismiss an abuse report (admin)' },

  'GET /api/plans': { schema: plainList('Plan'), summary: 'All plans (admin)' },
  'POST /api/plan/add': { schema: done({ id: INT, data: ref('Plan') }), summary: 'Create a plan (admin)' },
  'PUT /api/plan/{id}/update': { schema: done({ message: STRING, data: ref('Plan') }), summary: 'Change a plan (admin)' },
  'PUT /api/plan/{planid}/user/{userid}': { schema: MESSAGE, summary: "Change a user's plan (admin)" },
  'GET /api/users': { schema: plainList('User'), summary: 'All users (admin)' },
  'GET /api/user/{id}': { schema: withData('User'), summary: 'One user with their API key (admin)' },
  'POST /api/user/add': { schema: done({ message: STRING, data: object({ id: INT, email: STRING, username: STRING }) }), summary: 'Create a user (admin)' },
  'DELETE /api/user/{id}/delete': { schema: MESSAGE, summary: 'Delete a user (admin)', failures: { 400: 'UserDeleteRefused' } },
  'GET /api/user/login/{id}': { schema: done({ url: { ...STRING, description: 'the single-use login URL' } }), summary: 'Single-use login URL for a user, valid 1 hour (admin)', example: { error: 0, url: 'https://sho.rt/sso/…' } },

  'GET /api/v1/links': {
    schema: V1_LIST,
    summary: 'Your links, filtered, sorted and paginated',
    example: {
      error: '0',
      data: [v1Link],
      links: { first: 'https://sho.rt/api/v1/links?page=1', last: 'https://sho.rt/api/v1/links?page=1', prev: null, next: null },
      meta: { current_page: 1, from: 1, last_page: 1, path: 'https://sho.rt/api/v1/links', per_page: 10, to: 1, total: 1 },
      status: 200,
    },
  },
  'GET /api/v1/links/{id}': { schema: v1(200), summary: 'One link', example: { error: 0, data: v1Link, status: 200 } },
  'POST /api/v1/links': {
    schema: v1(201),
    summary: 'Create a link',
    status: 201,
    body: v1Body('create'),
    requestExample: { url: 'https://example.com/spring-sale', alias: 'spring', privacy: 0 },
    example: { error: 0, data: v1Link, status: 201 },
  },
  'PUT /api/v1/links/{id}': { schema: v1(200), summary: 'Change a link (fields not sent are kept; no domain)', body: v1Body('update'), example: { error: 0, data: v1Link, status: 200 } },
  'DELETE /api/v1/links/{id}': {
    schema: V1_DELETED,
    summary: 'Delete a link',
    example: { error: 0, id: 7, object: 'link', deleted: true, message: 'Link has been deleted.', status: 200 },
  },
  'DELETE /links/{id}/destroy': {
    schema: V1_DELETED,
    summary: 'Delete a link (the v1 path without /api/v1)',
    example: { error: 0, id: 7, object: 'link', deleted: true, message: 'Link has been deleted.', status: 200 },
  },

  'GET /healthz': {
    summary: 'Liveness: the process answers',
    responses: { 200: { description: '200: the process answers', content: { 'application/json': { schema: statusBody('ok'), example: { status: 'ok' } } } } },
  },
  'GET /readyz': {
    summary: 'Readiness: the database answers (Redis is reported, and optional)',
    description: 'A balancer sends requests to an instance only while this is 200.',
    responses: {
      200: {
        description: '200: ready; `degraded` when a configured Redis is not answering (rate limits and caches are then per instance)',
        content: {
          'application/json': {
            schema: { oneOf: [statusBody('ok'), { ...statusBody('degraded', { redis: { const: 'down' } }), required: ['status', 'redis'] }] },
            examples: { ok: { value: { status: 'ok' } }, degraded: { value: { status: 'degraded', redis: 'down' } } },
          },
        },
      },
      503: {
        description: '503: not ready: the database is not answering, or `secret:rotate` gave the deployment a new secret this instance does not have (restart it with the new SECRET_KEY)',
        content: {
          'application/json': {
            schema: { ...statusBody('unavailable', { error: { const: 1 }, message: { type: 'string' } }), required: ['status', 'error', 'message'] },
            examples: {
              database: { value: { status: 'unavailable', error: 1, message: 'The database is not answering.' } },
              secret: {
                value: {
                  status: 'unavailable',
                  error: 1,
                  message: 'secret:rotate gave this deployment a new secret: this instance finds no API key until it restarts with the new SECRET_KEY.',
                },
              },
            },
          },
        },
      },
    },
  },
  'GET /metrics': {
    summary: 'Prometheus metrics',
    description: 'Plain text in the Prometheus format. When METRICS_TOKEN is set it needs `Authorization: Bearer <METRICS_TOKEN>` (not an API key).',
    produces: 'text/plain',
    // no credential when METRICS_TOKEN is unset, the token when it is
    security: [{}, { metricsToken: [] }],
    failures: { 401: 'MetricsUnauthorized' },
  },
  'GET /{alias}/report': { summary: 'The form to report a short link as abuse (HTML)' },
  'POST /{alias}/report': {
    summary: 'Report a short link as abuse (the form posts here; HTML answers)',
    body: {
      required: true,
      content: {
        'application/x-www-form-urlencoded': {
          type: 'object',
          required: ['reason'],
          properties: {
            reason: { type: 'string', enum: Object.keys(REPORT_REASONS) },
            comment: { type: 'string', maxLength: 2000, description: 'details; line breaks allowed, other control characters not' },
            email: { type: 'string', description: 'optional, for the admins to answer' },
          },
        },
      },
    },
    failures: { 400: 'ReportRefused', 404: 'PageNotFound', 429: 'ReportsThrottled' },
  },
  'GET /': { summary: "The home page, or a branded domain's root redirect" },
  'GET /{alias}': { summary: 'A short link: redirects, or shows its splash, frame, password or expiry page (`/{alias}+`: its statistics page)' },
  'POST /{alias}': { summary: "A link's password form (or its statistics page's)" },
  'GET /r/{slug}': { summary: 'A campaign rotator: redirects to one of its links' },
  'POST /r/{slug}': { summary: 'The password form of the link a rotator visit landed on' },
  'GET /u/{username}/{id}': { summary: "A public campaign's list of links" },
  'GET /qr/{alias}': { summary: 'The image of a QR code (PNG, or SVG with format=svg)' },
  'GET /qr/{alias}/{size}': { summary: 'The image of a QR code, in one size' },
  'GET /q/{alias}': { summary: 'A QR code scan: redirects to its target' },
  'GET /{alias}/qr': { summary: "The QR code of a short link's URL" },
  'GET /{alias}/qr/{size}': { summary: "The QR code of a short link's URL, in one size" },
}
