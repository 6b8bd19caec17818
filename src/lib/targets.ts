/**
 * Matching keys of link targets (DECISIONS §4): countries, devices and languages as callers name
 * them, normalised to the one form the redirect compares visitors against. Pure, no I/O.
 *
 * Countries: ISO 3166-1 alpha-2 codes (geoip-lite's form), English names from ICU
 * (`Intl.DisplayNames`, full ICU in Node 20) with a few overrides where ICU's short form is not
 * what people type or expect to read, plus common aliases ("USA", "Ivory Coast", "Turkey").
 */

/** Every officially assigned ISO 3166-1 alpha-2 code, plus XK (Kosovo, as geolocation databases use it). */
const COUNTRY_CODES = (
  'AD AE AF AG AI AL AM AO AQ AR AS AT AU AW AX AZ BA BB BD BE BF BG BH BI BJ BL BM BN BO BQ BR BS BT BV BW BY BZ ' +
  'CA CC CD CF CG CH CI CK CL CM CN CO CR CU CV CW CX CY CZ DE DJ DK DM DO DZ EC EE EG EH ER ES ET FI FJ FK FM FO FR ' +
  'GA GB GD GE GF GG GH GI GL GM GN GP GQ GR GS GT GU GW GY HK HM HN HR HT HU ID IE IL IM IN IO IQ IR IS IT JE JM JO JP ' +
  'KE KG KH KI KM KN KP KR KW KY KZ LA LB LC LI LK LR LS LT LU LV LY MA MC MD ME MF MG MH MK ML MM MN MO MP MQ MR MS MT ' +
  'MU MV MW MX MY MZ NA NC NE NF NG NI NL NO NP NR NU NZ OM PA PE PF PG PH PK PL PM PN PR PS PT PW PY QA RE RO RS RU RW ' +
  'SA SB SC SD SE SG SH SI SJ SK SL SM SN SO SR SS ST SV SX SY SZ TC TD TF TG TH TJ TK TL TM TN TO TR TT TV TW TZ UA UG ' +
  'UM US UY UZ VA VC VE VG VI VN VU WF WS XK YE YT ZA ZM ZW'
).split(' ')

/** Names that read better than ICU's short forms ("Congo - Kinshasa", "Hong Kong SAR China"). */
const NAME_OVERRIDES: Record<string, string> = {
  FK: 'Falkland Islands',
  CD: 'Democratic Republic of the Congo',
  CG: 'Republic of the Congo',
  HK: 'Hong Kong',
  MO: 'Macao',
  MM: 'Myanmar',
  PS: 'Palestine',
  UM: 'United States Minor Outlying Islands',
  XK: 'Kosovo',
}

/** Other names people use for a country; ICU's own names and the overrides are added below. */
const COUNTRY_ALIASES: Record<string, string[]> = {
  US: ['USA', 'U.S.A.', 'U.S.', 'United States of America', 'America'],
  GB: ['UK', 'U.K.', 'Great Britain', 'Britain', 'England', 'Scotland', 'Wales', 'Northern Ireland'],
  AE: ['UAE', 'Emirates'],
  BA: ['Bosnia', 'Bosnia-Herzegovina'],
  BN: ['Brunei Darussalam'],
  BO: ['Plurinational State of Bolivia'],
  CD: ['DR Congo', 'DRC', 'Congo-Kinshasa', 'Congo, Democratic Republic of the', 'Zaire'],
  CG: ['Congo', 'Congo-Brazzaville', 'Congo, Republic of the'],
  CI: ["Cote d'Ivoire", 'Ivory Coast'],
  CV: ['Cabo Verde'],
  CZ: ['Czech Republic'],
  FK: ['Falkland Islands (Malvinas)', 'Malvinas'],
  FM: ['Federated States of Micronesia'],
  IR: ['Islamic Republic of Iran'],
  KP: ["Democratic People's Republic of Korea", 'DPRK'],
  KR: ['Korea', 'Republic of Korea', 'Korea, Republic of'],
  LA: ["Lao People's Democratic Republic", 'Lao PDR'],
  MD: ['Republic of Moldova'],
  MK: ['Macedonia', 'Republic of North Macedonia'],
  MM: ['Burma', 'Myanmar (Burma)'],
  MO: ['Macau', 'Macao SAR China'],
  HK: ['Hong Kong SAR China'],
  NL: ['Holland', 'The Netherlands'],
  PS: ['Palestinian Territories', 'State of Palestine'],
  RU: ['Russian Federation'],
  SY: ['Syrian Arab Republic'],
  SZ: ['Swaziland'],
  TL: ['East Timor'],
  TR: ['Turkey', 'Turkiye'],
  TW: ['Taiwan, Province of China', 'Republic of China'],
  TZ: ['United Republic of Tanzania'],
  VA: ['Vatican', 'Holy See'],
  VE: ['Bolivarian Republic of Venezuela'],
  VN: ['Viet Nam'],
  VG: ['Virgin Islands, British'],
  VI: ['Virgin Islands, U.S.', 'US Virgin Islands'],
}

/** Lower case, no accents or punctuation, "&" → "and", "St." → "saint", no leading "the". */
function nameKey(name: string): string {
  return name
    .normalize('NFD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[’'`´]/g, '')
    .replace(/&/g, ' and ')
    .replace(/\bst\.?(?=\s)/g, 'saint')
    .replace(/[^a-z0-9]+/g, ' ')
    .trim()
    .replace(/^the /, '')
}

const regionNames = new Intl.DisplayNames(['en'], { type: 'region', fallback: 'none' })

/** "St. Kitts & Nevis" → "Saint Kitts and Nevis": ICU's abbreviations spelled out for labels. */
const spelledOut = (name: string) => name.replace(/\bSt\. /g, 'Saint ').replace(/ & /g, ' and ')

const COUNTRY_NAMES = new Map<string, string>(
  COUNTRY_CODES.map((code) => [code, NAME_OVERRIDES[code] ?? spelledOut(regionNames.of(code) ?? code)]),
)

const COUNTRY_BY_NAME = new Map<string, string>()
for (const code of COUNTRY_CODES) {
  for (const n of [COUNTRY_NAMES.get(code)!, regionNames.of(code) ?? '', ...(COUNTRY_ALIASES[code] ?? [])]) {
    const k = nameKey(n)
    if (k && !COUNTRY_BY_NAME.has(k)) COUNTRY_BY_NAME.set(k, code)
  }
}

/**
 * A country as a caller names it – ISO 3166-1 alpha-2 code (any case, "UK" read as GB) or English
 * name – to its upper-case code; null when it names no country.
 */
export function normalizeCountry(input: string): string | null {
  const value = input.trim()
  if (/^[A-Za-z]{2}$/.test(value)) {
    const code = value.toUpperCase()
    if (code === 'UK') return 'GB'
    return COUNTRY_NAMES.has(code) ? code : null
  }
  if (value.length > 100) return null
  return COUNTRY_BY_NAME.get(nameKey(value)) ?? null
}

/** English name of an ISO 3166-1 alpha-2 code ("US" → "United States"); null for an unknown code. */
export function countryName(code: string): string | null {
  return COUNTRY_NAMES.get(code.toUpperCase()) ?? null
}

export const isCountryCode = (code: string) => COUNTRY_NAMES.has(code.toUpperCase())

/**
 * The countries a target may name, one entry per code with the name above, sorted by name: what
 * the dashboard's country picker offers, so it never offers a code this module refuses.
 */
export function countryOptions(): { code: string; name: string }[] {
  return COUNTRY_CODES.map((code) => ({ code, name: COUNTRY_NAMES.get(code)! })).sort((a, b) => a.name.localeCompare(b.name, 'en'))
}

// ---------------------------------------------------------------- devices

/** The device names of DECISIONS §4, in the form they are matched and labelled. */
export const DEVICES = ['iPhone', 'iPad', 'Android', 'Windows Phone', 'Windows', 'Mac', 'Linux', 'Chrome OS', 'BlackBerry'] as const
export type Device = (typeof DEVICES)[number]

/**
 * A target may also name the iOS family (v1 platform `iOS`: iPhone and iPad visitors) or Ubuntu
 * (v1 platform `Ubuntu`: Ubuntu visitors, who otherwise count as Linux). So a link may target both
 * `Linux` and `Ubuntu`, and an Ubuntu visitor prefers the Ubuntu target.
 */
export type DeviceMatch = Device | 'iOS' | 'Ubuntu'

const DEVICE_BY_KEY = new Map<string, DeviceMatch>()
for (const d of DEVICES) DEVICE_BY_KEY.set(deviceKey(d), d)
// v1 platform names (SPEC.md) and the names ua-parser-js and people use for the same systems
const DEVICE_SYNONYMS: Record<string, DeviceMatch> = {
  ios: 'iOS',
  ipod: 'iPhone',
  ipados: 'iPad',
  osx: 'Mac',
  macos: 'Mac',
  macosx: 'Mac',
  macintosh: 'Mac',
  ubuntu: 'Ubuntu',
  chromeos: 'Chrome OS',
  chromiumos: 'Chrome OS',
  chromebook: 'Chrome OS',
  windowsmobile: 'Windows Phone',
  blackberryos: 'BlackBerry',
  rimtabletos: 'BlackBerry',
}
for (const [k, v] of Object.entries(DEVICE_SYNONYMS)) DEVICE_BY_KEY.set(k, v)

function deviceKey(name: string): string {
  return name.toLowerCase().replace(/[^a-z0-9]/g, '')
}

/**
 * A device or platform name as a caller sends it ("iPhone", "OS X", "chrome os") to the form the
 * redirect matches on; null when it is not one of the known devices.
 */
export function normalizeDevice(input: string): DeviceMatch | null {
  if (input.length > 64) return null
  return DEVICE_BY_KEY.get(deviceKey(input)) ?? null
}

/**
 * Whether a visitor on `device` is matched by a target normalised to `match`. `ubuntu` says the
 * visitor's system is Ubuntu: a `Ubuntu` target matches only those, a `Linux` target all Linux.
 */
export function deviceMatches(match: string, device: Device | null, ubuntu = false): boolean {
  if (!device) return false
  const m = match.toLowerCase()
  if (m === 'ios') return device === 'iPhone' || device === 'iPad'
  if (m === 'ubuntu') return device === 'Linux' && ubuntu
  return m === device.toLowerCase()
}

// ---------------------------------------------------------------- languages

/** ISO 639-1 (two-letter) language codes. */
const LANGUAGE_CODES = new Set(
  (
    'aa ab ae af ak am an ar as av ay az ba be bg bh bi bm bn bo br bs ca ce ch co cr cs cu cv cy da de dv dz ee el ' +
    'en eo es et eu fa ff fi fj fo fr fy ga gd gl gn gu gv ha he hi ho hr ht hu hy hz ia id ie ig ii ik io is it iu ja ' +
    'jv ka kg ki kj kk kl km kn ko kr ks ku kv kw ky la lb lg li ln lo lt lu lv mg mh mi mk ml mn mr ms mt my na nb nd ' +
    'ne ng nl nn no nr nv ny oc oj om or os pa pi pl ps pt qu rm rn ro ru rw sa sc sd se sg si sk sl sm sn so sq sr ss ' +
    'st su sv sw ta te tg th ti tk tl tn to tr ts tt tw ty ug uk ur uz ve vi vo wa wo xh yi yo za zh zu'
  ).split(' '),
)
/** Withdrawn codes some browsers still send. */
const LANGUAGE_RENAMED: Record<string, string> = { iw: 'he', in: 'id', ji: 'yi', jw: 'jv', mo: 'ro' }

const languageNames = new Intl.DisplayNames(['en'], { type: 'language', fallback: 'none' })
const LANGUAGE_BY_NAME = new Map<string, string>()
for (const code of LANGUAGE_CODES) {
  const n = languageNames.of(code)
  if (n) LANGUAGE_BY_NAME.set(nameKey(n), code)
}

/**
 * A language as a caller names it – ISO 639-1 code, optionally with a region ("en", "pt-BR") or its
 * English name ("French") – to the lower-case two-letter code; null when it is not one.
 */
export function normalizeLanguage(input: string): string | null {
  const value = input.trim()
  const m = /^([A-Za-z]{2})(?:[-_][A-Za-z0-9]{2,8})*$/.exec(value)
  if (m) {
    const code = LANGUAGE_RENAMED[m[1].toLowerCase()] ?? m[1].toLowerCase()
    return LANGUAGE_CODES.has(code) ? code : null
  }
  if (value.length > 64) return null
  return LANGUAGE_BY_NAME.get(nameKey(value)) ?? null
}

/** English name of a language code ("fr" → "French"); null when unknown. */
export function languageName(code: string): string | null {
  const c = code.toLowerCase()
  return LANGUAGE_CODES.has(c) ? (languageNames.of(c) ?? null) : null
}

/**
 * The first language of an `Accept-Language` header as a two-letter code, or null. Targets match
 * on this one (DECISIONS §4), not on the whole preference list.
 */
export function primaryLanguage(header: string | null | undefined): string | null {
  if (!header) return null
  const first = header.slice(0, 256).split(',')[0].split(';')[0].trim()
  const m = /^([A-Za-z]{2,3})(?:[-_]|$)/.exec(first)
  if (!m) return null
  const code = LANGUAGE_RENAMED[m[1].toLowerCase()] ?? m[1].toLowerCase()
  return LANGUAGE_CODES.has(code) ? code : null
}
