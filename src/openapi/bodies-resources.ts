import { BLOCKLIST_TYPES, CHANNEL_ITEM_TYPES, PIXEL_TYPES, QR_TYPES } from '../db/schema/index.js'
import { OVERLAY_TYPES, POSITIONS } from '../resources/pages/index.js'
import { INT, NULLABLE_INT, NULLABLE_STRING, STRING, TIMESTAMP, array, object, ref } from './body-types.js'

/*
 * The success bodies of everything beside links and their statistics (bodies.ts): the account,
 * users, domains, campaigns, channels, pixels, QR codes, splash pages and overlays, the blocklist
 * and reports, each as its presenter under src/resources/* builds it.
 */

type Schema = Record<string, unknown>

const account = {
  id: INT,
  email: STRING,
  username: STRING,
  avatar: { ...STRING, description: 'a Gravatar URL' },
  status: { enum: ['pro', 'free'], description: '`pro` on a paid plan that has not expired' },
  expires: { ...TIMESTAMP, type: ['string', 'null'], description: 'when the plan ends; null when it does not' },
  registered: TIMESTAMP,
}

const allowance = (what: string) => object({ used: INT, limit: { ...INT, description: 'the plan\'s cap; 0: no cap' } }, what)
const countedAllowance = (what: string) =>
  object({ enabled: { type: 'boolean', description: 'the plan includes it' }, used: INT, limit: { ...INT, description: 'the plan\'s `count`; 0: no cap' } }, what)

const qrCounts = { clicks: INT, uniqueClicks: INT, botClicks: INT }
const qrTops = { topCountries: ref('Top'), topReferrers: ref('Top'), topBrowsers: ref('Top'), topOs: ref('Top') }

export const RESOURCE_SCHEMAS: Record<string, Schema> = {
  Account: object(account, 'SPEC.md "Account".'),
  AccountUsage: object(
    {
      plan: object({ id: INT, name: STRING }),
      links: allowance('links owned, against the plan\'s `links`'),
      clicks: object(
        { month: { ...STRING, pattern: '^\\d{4}-\\d{2}$', description: 'the calendar month (UTC)' }, used: INT, limit: { ...INT, description: 'the plan\'s `clicks`; 0: no cap' } },
        'detailed clicks recorded this month, against the plan\'s monthly `clicks`',
      ),
      retention: { ...INT, description: 'days of click detail kept; 0: forever' },
      domain: countedAllowance('branded domains'),
      pixels: countedAllowance('pixels'),
      splash: countedAllowance('splash pages'),
      overlay: countedAllowance('CTA overlays'),
    },
    'What the account uses of its plan. An admin is never limited: every cap 0, every feature enabled.',
  ),
  User: object(
    {
      ...account,
      planid: { ...NULLABLE_INT, description: 'the plan the user is on' },
      apikey: { ...NULLABLE_STRING, description: 'the current API key; null when none was issued' },
      admin: { type: 'boolean' },
    },
    'SPEC.md "User": the account with its plan and key.',
  ),
  Domain: object(
    { id: INT, domain: { ...STRING, description: 'the origin, such as https://go.example.com' }, redirectroot: STRING, redirect404: STRING },
    'SPEC.md "Branded domain": an unset redirect is "".',
  ),
  Campaign: object(
    {
      id: INT,
      name: STRING,
      domain: { ...STRING, description: 'the name again (SPEC.md)' },
      public: { type: 'boolean' },
      rotator: { oneOf: [{ type: 'string' }, { const: false }], description: 'the /r/<slug> URL; false without a slug' },
      list: { ...STRING, description: 'the public list page of the campaign' },
    },
    'SPEC.md "Campaign".',
  ),
  Channel: object({ id: INT, name: STRING, description: STRING, color: STRING, starred: { type: 'boolean' } }, 'SPEC.md "Channel".'),
  ChannelItem: object(
    {
      type: { enum: [...CHANNEL_ITEM_TYPES] },
      id: INT,
      title: { ...STRING, description: "the link's title (else its long URL) or the QR code's name" },
      preview: { ...STRING, description: 'the destination of a link, the image URL of a QR code' },
      link: { ...STRING, description: 'the short URL, or the scan URL (the image URL of a text or wifi code)' },
      date: { type: 'string', pattern: '^\\d{4}-\\d{2}-\\d{2}$', description: 'the day it was created, YYYY-MM-DD' },
    },
    'SPEC.md "Channel item".',
  ),
  Pixel: object({ id: INT, type: { enum: [...PIXEL_TYPES] }, name: STRING, tag: STRING, date: TIMESTAMP }, 'SPEC.md "Pixel".'),
  QrCode: object(
    { id: INT, link: { ...STRING, description: 'the image URL' }, scans: INT, name: STRING, date: TIMESTAMP },
    'SPEC.md "QR code": the list item, and `details` of one.',
  ),
  QrStats: object({ ...qrCounts, ...qrTops, socialCount: object({ facebook: INT, twitter: INT, instagram: INT }) }, 'All-time statistics of the scans.'),
  QrDesign: object({
    type: { enum: [...QR_TYPES] },
    data: { type: ['string', 'object'], description: 'as it was sent (a string, or an object whose fields depend on `type`)' },
    background: STRING,
    foreground: STRING,
    logo: { type: 'boolean', description: 'whether the code has a logo (the logo stays on the server)' },
    name: STRING,
  }),
  SplashItem: object({ id: INT, name: STRING, date: TIMESTAMP }, 'SPEC.md "Splash page".'),
  Splash: object({ id: INT, name: STRING, title: STRING, message: STRING, image: STRING, button: STRING, countdown: INT, date: TIMESTAMP }),
  OverlayItem: object({ id: INT, type: { enum: [...OVERLAY_TYPES] }, name: STRING, date: TIMESTAMP }, 'SPEC.md "CTA overlay".'),
  Overlay: object({
    id: INT,
    type: { enum: [...OVERLAY_TYPES] },
    name: STRING,
    title: STRING,
    message: STRING,
    button: STRING,
    buttonurl: STRING,
    position: { enum: [...POSITIONS] },
    background: STRING,
    color: STRING,
    buttonbackground: STRING,
    buttoncolor: STRING,
    options: array(STRING),
    date: TIMESTAMP,
  }),
  OverlayResponse: object(
    {
      id: INT,
      link: { ...NULLABLE_INT, description: 'the link the overlay was shown on; null when unknown or deleted' },
      type: { enum: ['contact', 'poll'] },
      name: { ...STRING, description: 'contact' },
      email: { ...STRING, description: 'contact' },
      message: { ...STRING, description: 'contact' },
      option: { ...INT, description: 'poll: the index of the answer chosen' },
      answer: { ...STRING, description: 'poll: the answer chosen' },
      date: TIMESTAMP,
    },
    'A contact-form submission (name, email, message) or a poll vote (option, answer).',
    ['id', 'link', 'type', 'date'],
  ),
  BlocklistEntry: object({ id: INT, type: { enum: [...BLOCKLIST_TYPES] }, value: STRING, reason: STRING, date: TIMESTAMP }),
  Report: object(
    {
      id: INT,
      link: { ...NULLABLE_INT, description: 'null once the link is deleted' },
      shorturl: { ...STRING, description: 'the short URL as reported' },
      url: { ...STRING, description: 'where the link leads now; "" once it is deleted' },
      reason: STRING,
      comment: STRING,
      email: STRING,
      date: TIMESTAMP,
      quarantined: { type: 'boolean' },
    },
    'An abuse report a visitor sent.',
  ),
}
