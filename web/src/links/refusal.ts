/*
 * Which field of the link form the API refused. The API names it first, as its body names it
 * ("custom: … is already taken", "languagetarget.0.link: must be …", "url must …"); the form
 * marks that field (ui/refusal.ts, as every form does), opens the section holding it and says the
 * message with the form's label.
 */

import { NAMED } from '../ui/field-labels'
import { FEATURE_WORDS, type Feature } from '../plan'

/**
 * The lists of rows in the form, by their body names, with the labels of a row's two fields and
 * what one row is called ("Remove parameter row 2": the row, not its first field).
 */
export const LISTS = {
  geotarget: { legend: 'By country', key: 'Country', link: 'Country URL', add: 'Add country', row: 'country' },
  devicetarget: { legend: 'By device', key: 'Device', link: 'Device URL', add: 'Add device', row: 'device' },
  languagetarget: { legend: 'By language', key: 'Language', link: 'Language URL', add: 'Add language', row: 'language' },
  parameters: { legend: 'Parameters', key: 'Parameter name', link: 'Parameter value', add: 'Add parameter', row: 'parameter' },
} as const
export type ListName = keyof typeof LISTS

/** The form's label of every other field it sends, by body name: LinkForm labels its fields from here. */
export const LABELS = {
  url: 'Destination URL',
  custom: 'Alias',
  domain: 'Domain',
  title: 'Title',
  description: 'Note',
  type: 'Redirect type',
  password: 'Password',
  expiry: 'Expiry',
  expiration_clicks: 'Expire after clicks',
  expiration_url: 'Once expired, send visitors to',
  status: 'Statistics page',
  redirectstatus: 'Redirect status',
  cachettl: 'Cache lifetime (seconds)',
  fallback: 'Fallback URL',
  'deeplink.auto': 'Deep links',
  'deeplink.apple': 'App Store link',
  'deeplink.google': 'Google Play link',
  channel: 'Channel',
  campaign: 'Campaign',
  pixels: 'Pixels',
  metatitle: 'Meta title',
  metadescription: 'Meta description',
  metaimage: 'Meta image URL',
} as const

/** What a submit sent, to read entry numbers back: the form row of each list entry (blank rows are not sent), the pixel ids in order. */
export interface Sent {
  rows: Partial<Record<ListName, number[]>>
  pixels: number[]
}

export interface Refused {
  /** the refused control: a body name (`custom`, `deeplink.apple`, `pixels.7` for one pixel) or a list's (`geotarget`) */
  field: string
  /** in a list: the form row (from 0) and which of its fields; no row when the whole list is refused */
  row?: { index: number; part: 'key' | 'link' }
  /** the API's message with the field named by the form's label: "Alias: …", "Country URL 2: …" */
  message: string
}


/**
 * The field of this form that uses each plan feature a link can use (the API's featuresUsed): the
 * API's refusal names the feature by its plan key ("custom"), which says little to someone filling
 * in the form, so the form marks the field and says the feature in words (plan.tsx).
 */
const FEATURE_FIELDS: Partial<Record<Feature, string>> = {
  custom: 'custom',
  alias: 'custom',
  domain: 'domain',
  splash: 'type',
  overlay: 'type',
  geo: 'geotarget',
  device: 'devicetarget',
  pixels: 'pixels',
  bundle: 'campaign',
  parameters: 'parameters',
}
/** what follows the words where there is a way on without the feature */
const WAY_ON: Partial<Record<Feature, string>> = { custom: '; leave the alias empty for a random one' }
const PLAN_REFUSAL = /^Your plan does not include the "([a-z]+)" feature\.$/

/** The field the API's message names first, or undefined when it names none of this form's. */
export function readRefusal(message: string, sent: Sent): Refused | undefined {
  const key = PLAN_REFUSAL.exec(message)?.[1] as Feature | undefined
  const uses = key !== undefined && Object.hasOwn(FEATURE_FIELDS, key) ? FEATURE_FIELDS[key] : undefined
  if (key !== undefined && uses !== undefined) {
    const label = uses in LISTS ? LISTS[uses as ListName].legend : LABELS[uses as keyof typeof LABELS]
    return { field: uses, message: `${label}: your plan does not include ${FEATURE_WORDS[key]}${WAY_ON[key] ?? ''}.` }
  }
  const m = NAMED.exec(message)
  if (!m) return undefined
  const [path, top] = m
  const parts = m[2].split('.').slice(1)
  const rest = message.slice(path.length)
  if (top in LISTS) {
    const list = LISTS[top as ListName]
    const index = parts[0] === undefined ? undefined : sent.rows[top as ListName]?.[Number(parts[0])]
    if (index === undefined) return { field: top, message: `${list.legend}${rest}` }
    // an entry's own problem (its key unknown or listed twice) is its key's: "geotarget.1: …"
    const part = parts[1] === 'link' || parts[1] === 'value' ? 'link' : 'key'
    return { field: top, row: { index, part }, message: `${list[part]} ${index + 1}${rest}` }
  }
  if (top === 'pixels' && parts[0] !== undefined) {
    const id = sent.pixels[Number(parts[0])]
    return { field: id === undefined ? 'pixels' : `pixels.${id}`, message: `${LABELS.pixels}${rest}` }
  }
  // the deep link object as a whole is its checkbox's
  const field = top === 'deeplink' ? `deeplink.${parts[0] ?? 'auto'}` : top
  const label = (LABELS as Record<string, string | undefined>)[field]
  return label === undefined ? undefined : { field, message: `${label}${rest}` }
}
