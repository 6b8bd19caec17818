import { COUNTED_FEATURES, DELIVERY_STATUSES, FEATURES, HEALTH_STATES, LINK_TYPES, WEBHOOK_EVENTS } from '../db/schema/index.js'
import { RESOURCE_SCHEMAS } from './bodies-resources.js'
import { INT, NULLABLE_INT, NULLABLE_STRING, STRING, TIMESTAMP, array, object, ref } from './body-types.js'

/*
 * The success bodies, field by field: the objects the interfaces answer (SPEC.md "Resources and
 * their fields", DECISIONS §7, §8, §10), as the presenters under src/resources/* build them. Each
 * lists in `required` what the server always sends; none forbids other properties, so a field
 * added later breaks no client. The envelopes around them are built per operation (envelopes.ts).
 * This file holds links, statistics and v1; bodies-resources.ts everything else.
 */

export type Schema = Record<string, unknown>

/** `topCountries` and the other top lists: 0 when there is nothing, else label → count as a string (DECISIONS §6). */
const Top: Schema = {
  oneOf: [
    { const: 0, description: 'nothing counted yet' },
    { type: 'object', additionalProperties: { type: 'string', pattern: '^\\d+$' }, description: 'up to 10 labels, each with its count as a string' },
  ],
}

const counts = { clicks: INT, uniqueClicks: INT, botClicks: INT }
const tops = { topCountries: ref('Top'), topReferrers: ref('Top'), topBrowsers: ref('Top'), topOs: ref('Top') }

/** `{key as sent: url}`: a link's targets of one kind. */
const targetMap = { type: 'object', additionalProperties: { type: 'string' }, description: 'target key as sent → the URL its visitors go to' }

const health = object(
  {
    state: { enum: [...HEALTH_STATES] },
    status: { ...NULLABLE_INT, description: 'the HTTP status of the last check; null when none came back' },
    reason: { ...NULLABLE_STRING, description: 'why the URL is broken' },
    checkedAt: { ...TIMESTAMP, type: ['string', 'null'] },
  },
  'What the health checker last found at the long URL (DECISIONS §10.5).',
)

/** The stored settings `full=1` adds to `details`, after the SPEC.md fields. */
const fullDetails = {
  alias: STRING,
  domain: { ...NULLABLE_STRING, description: 'the branded domain, null on the default one' },
  type: { type: 'string', description: `${LINK_TYPES.filter((t) => t !== 'splash-page' && t !== 'overlay').join(', ')}, or splash-<id> / overlay-<id>` },
  status: { enum: ['public', 'private'] },
  privacy: { enum: [0, 1, 2] },
  password: { type: 'boolean' },
  disabled: { type: 'boolean' },
  language: targetMap,
  rotation: array(STRING),
  metatitle: STRING,
  metadescription: STRING,
  metaimage: STRING,
  deeplink: object({ auto: { type: 'boolean' }, apple: NULLABLE_STRING, google: NULLABLE_STRING }),
  parameters: array(object({ name: STRING, value: STRING })),
  pixels: array(INT),
  channels: array(INT),
  campaign: NULLABLE_INT,
  expiration_url: NULLABLE_STRING,
  expiration_clicks: NULLABLE_INT,
  uniqueClicks: INT,
  updated: TIMESTAMP,
  redirectstatus: { enum: [301, 302, 307, 308] },
  cachettl: INT,
  fallback: NULLABLE_STRING,
  aliases: array(object({ alias: STRING, date: TIMESTAMP })),
  health: ref('LinkHealth'),
}

/** GET /api/url/{id}/stats, GET /api/qr/{id}/stats; GET /api/account/stats adds `topLinks`. */
const SERIES: Record<string, Schema> = {
  from: { type: 'string', pattern: '^\\d{4}-\\d{2}-\\d{2}$' },
  to: { type: 'string', pattern: '^\\d{4}-\\d{2}-\\d{2}$' },
  interval: { enum: ['day', 'hour'] },
  series: array(object({ date: { type: 'string', description: 'YYYY-MM-DD, or YYYY-MM-DD HH:00:00 by the hour' }, ...counts })),
  totals: object(counts),
  ...tops,
  topDevices: ref('Top'),
  topLanguages: ref('Top'),
}

const v1Target = (key: boolean) => ({ type: ['array', 'null'], items: object(key ? { key: STRING, value: STRING } : { value: STRING }) })

export const BODY_SCHEMAS: Record<string, Schema> = {
  Top,
  LinkListItem: object(
    { id: INT, alias: STRING, shorturl: STRING, longurl: STRING, clicks: INT, title: STRING, description: STRING, date: TIMESTAMP },
    'SPEC.md "Link, list form".',
  ),
  LinkDetails: object(
    {
      id: INT,
      shorturl: STRING,
      longurl: STRING,
      title: STRING,
      description: STRING,
      location: targetMap,
      device: targetMap,
      expiry: { ...TIMESTAMP, type: ['string', 'null'] },
      date: TIMESTAMP,
      quarantined: { const: true, description: 'only present while a blocklist entry holds the link' },
      ...fullDetails,
    },
    '`details` of SPEC.md "Link, single form"; with `full=1`, the stored settings follow the SPEC.md fields.',
    ['id', 'shorturl', 'longurl', 'title', 'description', 'location', 'device', 'expiry', 'date'],
  ),
  LinkStats: object({ ...counts, ...tops, socialCount: object({ facebook: INT, twitter: INT, google: INT }) }, 'All-time statistics of a link.'),
  LinkHealth: health,
  LinkHealthItem: object({ id: INT, ...(health.properties as Schema), quarantined: { type: 'boolean' } }),
  Resolved: object(
    {
      status: { ...INT, description: 'the HTTP status the visit would get' },
      location: { ...NULLABLE_STRING, description: 'where the visitor would go; null when nowhere (a 404, 410, password or preview page)' },
      page: { enum: ['direct', 'frame', 'splash', 'overlay', 'pixels', 'password', 'expired', 'disabled', 'quarantined', 'preview'] },
      matched: {
        oneOf: [object({ kind: { enum: ['deeplink', 'device', 'geo', 'language', 'rotation', 'fallback', 'default'] }, key: NULLABLE_STRING }), { type: 'null' }],
      },
      steps: array(STRING),
    },
    'What a visit by the visitor described would get (`POST /api/url/{id}/resolve`).',
  ),
  StatsSeries: object(SERIES, 'Statistics over time (DECISIONS §10.2): every bucket of the range, zeros included, totals and top lists.'),
  AccountStats: object(
    { ...SERIES, topLinks: array(object({ id: INT, alias: STRING, shorturl: STRING, title: STRING, clicks: INT })) },
    'The statistics over time of all the links of an account, and its 10 links with the most clicks in the range.',
  ),
  V1Link: object(
    {
      id: INT,
      alias: STRING,
      url: STRING,
      short_url: STRING,
      title: STRING,
      target_type: { enum: [0, 1, 2, 3, 4] },
      country_target: v1Target(true),
      platform_target: v1Target(true),
      language_target: v1Target(true),
      rotation_target: v1Target(false),
      last_rotation: INT,
      disabled: { enum: [0, 1] },
      privacy: { enum: [0, 1, 2] },
      privacy_password: { type: 'boolean' },
      password: { type: 'boolean' },
      expiration_url: NULLABLE_STRING,
      expiration_clicks: NULLABLE_INT,
      clicks: INT,
      user_id: INT,
      space: { oneOf: [object({ id: INT, name: STRING, color: STRING }), { type: 'null' }] },
      domain: { oneOf: [object({ id: INT, name: { ...STRING, description: 'the host' } }), { type: 'null' }] },
      pixels: array(object({ id: INT, name: STRING, type: STRING })),
      ends_at: { ...TIMESTAMP, type: ['string', 'null'] },
      created_at: TIMESTAMP,
      updated_at: TIMESTAMP,
    },
    'The v1 Link object (DECISIONS §8).',
  ),
  FeatureSwitch: object({ enabled: { enum: ['0', '1'] }, count: { type: 'string', pattern: '^\\d+$', description: `on ${COUNTED_FEATURES.join(', ')} only; "0" is unlimited` } }, undefined, ['enabled']),
  Plan: object(
    {
      id: INT,
      name: STRING,
      free: { type: 'boolean' },
      prices: { oneOf: [object({ monthly: { type: 'number' }, yearly: { type: 'number' }, lifetime: { type: 'number' } }), { type: 'null' }], description: 'null on a free plan' },
      limits: object({
        links: { ...INT, description: '0 is unlimited' },
        clicks: { ...INT, description: '0 is unlimited' },
        retention: { ...INT, description: 'days; 0 is forever' },
        ...Object.fromEntries(FEATURES.map((f) => [f, ref('FeatureSwitch')])),
        // a plan stored before a feature existed has no switch for it: only the numbers are certain
      }, 'the numbers, then a switch per feature', ['links', 'clicks', 'retention']),
    },
    'SPEC.md "Plan".',
  ),
  Webhook: object(
    {
      id: INT,
      url: STRING,
      events: array({ enum: [...WEBHOOK_EVENTS] }),
      description: STRING,
      secret: { ...STRING, description: 'receivers check Kurz-Signature with it' },
      enabled: { type: 'boolean' },
      disabledReason: { ...NULLABLE_STRING, description: 'why the service switched it off; null when the owner did, or it is on' },
      clickEventsSkipped: { ...INT, description: 'click events not queued because the account had WEBHOOK_CLICK_BACKLOG deliveries pending' },
      clickEventsSkippedAt: { ...TIMESTAMP, type: ['string', 'null'], description: 'when the last of them was skipped; null when none was' },
      date: TIMESTAMP,
    },
    'A webhook (DECISIONS §10.3).',
  ),
  Delivery: object({
    id: INT,
    event: { enum: [...WEBHOOK_EVENTS] },
    status: { enum: [...DELIVERY_STATUSES] },
    attempts: INT,
    responseStatus: NULLABLE_INT,
    error: { ...NULLABLE_STRING, description: 'why the last attempt failed' },
    date: TIMESTAMP,
    nextAttempt: { ...TIMESTAMP, type: ['string', 'null'], description: 'when a pending delivery is due; null otherwise' },
  }),
  ...RESOURCE_SCHEMAS,
}
