import { REPORT_REASONS } from '../resources/reports/page.js'

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
  /** query parameters the handler parses itself (not in its route schema) */
  query?: Record<string, Record<string, unknown>>
  /** a request body to show instead of the generated one */
  requestExample?: unknown
  /** request body of a handler that reads its own body: a schema per media type it takes */
  body?: { content: Record<string, Record<string, unknown>>; description?: string; required?: boolean }
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

const target = (key: string) => ({
  type: 'array',
  items: { type: 'object', properties: { key: { type: 'string', description: key }, value: { type: 'string', description: 'target URL' } } },
})

/** The v1 form fields (SPEC.md "Link interface v1"); arrays are sent as country[0][key]=… in a form. */
const v1Form = {
  type: 'object',
  properties: {
    url: { type: 'string', description: 'target URL; required on create' },
    domain: { type: 'string', description: 'create only' },
    alias: { type: 'string' },
    password: { type: 'string' },
    space: { type: 'string' },
    pixels: { type: 'array', items: { type: 'integer' } },
    disabled: { type: 'integer', enum: [0, 1], description: '0 active, 1 disabled; 0 on create' },
    privacy: { type: 'integer', enum: [0, 1, 2], description: '0 public, 1 private, 2 password; 0 on create' },
    privacy_password: { type: 'string', description: 'required when privacy is 2' },
    expiration_url: { type: 'string' },
    expiration_date: { type: 'string', description: 'YYYY-MM-DD' },
    expiration_time: { type: 'string', description: 'HH:MM' },
    expiration_clicks: { type: 'integer' },
    target_type: { type: 'integer', enum: [0, 1, 2, 4], description: '0 none, 1 geographic, 2 platform, 4 rotation' },
    country: target('country code'),
    platform: target('iOS, Android, Windows, OS X, Linux, Ubuntu or Chrome OS'),
    language: target('language code'),
    rotation: { type: 'array', items: { type: 'object', properties: { value: { type: 'string' } } } },
  },
}
const v1Body = { content: { 'application/x-www-form-urlencoded': v1Form, 'application/json': v1Form } }

export const NOTES: Record<string, OperationNotes> = {
  'GET /api/account': {
    summary: 'Your account',
    example: { error: 0, data: { id: 1, email: 'ada@example.com', username: 'ada', avatar: 'https://www.gravatar.com/avatar/…?d=identicon', status: 'pro', expires: null, registered: ts } },
  },
  'PUT /api/account/update': { summary: 'Change your email or password', example: updated('Account') },
  'POST /api/account/apikey': {
    summary: 'Issue a new API key (the old one stops working)',
    example: { error: 0, message: 'A new API key has been issued; the previous key no longer works.', apikey: '…' },
  },

  'GET /api/urls': {
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
    summary: 'One link with its statistics',
    example: {
      error: 0,
      id: 1,
      details: { id: 1, shorturl: short, longurl: 'https://example.com/spring-sale', title: '', description: '', location: {}, device: {}, expiry: null, date: ts },
      data: { clicks: 42, uniqueClicks: 30, topCountries: 0, topReferrers: 0, topBrowsers: 0, topOs: 0, socialCount: { facebook: 0, twitter: 0, google: 0 }, botClicks: 0 },
    },
  },
  'POST /api/url/add': {
    summary: 'Shorten a URL',
    requestExample: { url: 'https://example.com/spring-sale', custom: 'spring', status: 'public', geotarget: [{ location: 'Germany', link: 'https://example.de/fruehling' }] },
    example: { error: 0, id: 1, shorturl: short, short },
  },
  'PUT /api/url/{id}/update': { summary: 'Change a link (fields not sent are kept)', example: { error: 0, id: 1, short } },
  'DELETE /api/url/{id}/delete': { summary: 'Delete a link and its clicks', example: deleted('Link') },

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
    summary: 'Create links from an export file (Kurz, Bitly, YOURLS, Shlink, Kutt)',
    description:
      'The file is the request body, up to 20 MiB (`npm run cli -- import` takes any size). Every row goes through the rules of `POST /api/url/add`; an alias already taken is skipped, never overwritten. `errors` lists refused and skipped rows by line.',
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

  'GET /api/domains': { summary: 'Your branded domains', example: { error: '0', data: { ...pageData, domains: [{ id: 1, domain: 'https://go.example.com', redirectroot: '', redirect404: '' }] } } },
  'POST /api/domain/add': { summary: 'Add a branded domain', example: { error: 0, id: 1 } },
  'PUT /api/domain/{id}/update': { summary: 'Change a branded domain' },
  'DELETE /api/domain/{id}/delete': { summary: 'Delete a branded domain' },

  'GET /api/campaigns': { summary: 'Your campaigns' },
  'POST /api/campaign/add': {
    summary: 'Create a campaign',
    example: { error: 0, id: 1, name: 'Spring', domain: 'Spring', public: true, rotator: 'https://sho.rt/r/spring-sale', list: 'https://sho.rt/u/ada/1' },
  },
  'POST /api/campaign/{campaignid}/assign/{linkid}': { summary: 'Put a link in a campaign' },
  'PUT /api/campaign/{id}/update': { summary: 'Change a campaign' },
  'DELETE /api/campaign/{id}/delete': { summary: 'Delete a campaign' },

  'GET /api/channels': { summary: 'Your channels' },
  'GET /api/channel/{id}': { summary: 'The items of a channel' },
  'POST /api/channel/add': {
    summary: 'Create a channel',
    example: { error: 0, id: 1, name: 'Newsletter', description: '', color: '#2554c7', starred: false },
  },
  'POST /api/channel/{channelid}/assign/{type}/{itemid}': { summary: 'Put a link, bio page or QR code in a channel' },
  'PUT /api/channel/{id}/update': { summary: 'Change a channel' },
  'DELETE /api/channel/{id}/delete': { summary: 'Delete a channel (its items are unassigned)' },

  'GET /api/pixels': { summary: 'Your tracking pixels' },
  'POST /api/pixel/add': { summary: 'Add a tracking pixel', example: { error: 0, id: 1 } },
  'PUT /api/pixel/{id}/update': { summary: 'Change a tracking pixel' },
  'DELETE /api/pixel/{id}/delete': { summary: 'Delete a tracking pixel' },

  'GET /api/qr': {
    summary: 'Your QR codes',
    example: { error: '0', data: { ...pageData, qrs: [{ id: 1, link: 'https://sho.rt/qr/JsF7Vl', scans: 0, name: 'link 2030-01-15', date: ts }] } },
  },
  'GET /api/qr/{id}': { summary: 'One QR code' },
  'POST /api/qr/add': { summary: 'Create a QR code', example: { error: 0, id: 1, link: 'https://sho.rt/qr/JsF7Vl' } },
  'PUT /api/qr/{id}/update': { summary: 'Change a QR code' },
  'DELETE /api/qr/{id}/delete': { summary: 'Delete a QR code' },

  'GET /api/splash': { summary: 'Your splash pages' },
  'GET /api/splash/{id}': { summary: 'One splash page' },
  'POST /api/splash/add': { summary: 'Create a splash page' },
  'PUT /api/splash/{id}/update': { summary: 'Change a splash page' },
  'DELETE /api/splash/{id}/delete': { summary: 'Delete a splash page (its links become direct)' },
  'GET /api/overlay': { summary: 'Your CTA overlays' },
  'GET /api/overlay/{id}': { summary: 'One CTA overlay' },
  'POST /api/overlay/add': { summary: 'Create a CTA overlay' },
  'PUT /api/overlay/{id}/update': { summary: 'Change a CTA overlay' },
  'DELETE /api/overlay/{id}/delete': { summary: 'Delete a CTA overlay and its responses (its links become direct)' },
  'GET /api/overlay/{id}/responses': { summary: 'Contact-form submissions and poll votes of an overlay' },

  'GET /api/plans': { summary: 'All plans (admin)' },
  'POST /api/plan/add': { summary: 'Create a plan (admin)' },
  'PUT /api/plan/{id}/update': { summary: 'Change a plan (admin)' },
  'PUT /api/plan/{planid}/user/{userid}': { summary: "Change a user's plan (admin)" },
  'GET /api/users': { summary: 'All users (admin)' },
  'GET /api/user/{id}': { summary: 'One user with their API key (admin)' },
  'POST /api/user/add': { summary: 'Create a user (admin)' },
  'DELETE /api/user/{id}/delete': { summary: 'Delete a user (admin)' },
  'GET /api/user/login/{id}': { summary: 'Single-use login URL for a user, valid 1 hour (admin)', example: { error: 0, url: 'https://sho.rt/sso/…' } },

  'GET /api/v1/links': {
    summary: 'Your links, filtered, sorted and paginated',
    example: {
      error: '0',
      data: [v1Link],
      links: { first: 'https://sho.rt/api/v1/links?page=1', last: 'https://sho.rt/api/v1/links?page=1', prev: null, next: null },
      meta: { current_page: 1, from: 1, last_page: 1, path: 'https://sho.rt/api/v1/links', per_page: 10, to: 1, total: 1 },
      status: 200,
    },
  },
  'GET /api/v1/links/{id}': { summary: 'One link', example: { error: 0, data: v1Link, status: 200 } },
  'POST /api/v1/links': {
    summary: 'Create a link',
    status: 201,
    body: v1Body,
    requestExample: { url: 'https://example.com/spring-sale', alias: 'spring', privacy: 0 },
    example: { error: 0, data: v1Link, status: 201 },
  },
  'PUT /api/v1/links/{id}': { summary: 'Change a link (fields not sent are kept; no domain)', body: v1Body, example: { error: 0, data: v1Link, status: 200 } },
  'DELETE /api/v1/links/{id}': {
    summary: 'Delete a link',
    example: { error: 0, id: 7, object: 'link', deleted: true, message: 'Link has been deleted.', status: 200 },
  },
  'DELETE /links/{id}/destroy': {
    summary: 'Delete a link (the v1 path without /api/v1)',
    example: { error: 0, id: 7, object: 'link', deleted: true, message: 'Link has been deleted.', status: 200 },
  },

  'GET /healthz': { summary: 'Liveness: the process answers' },
  'GET /readyz': { summary: 'Readiness: the database answers (Redis is reported, and optional)' },
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
