import { DEVICES } from '../api/types'
import { COUNTRY_OPTIONS, countryName } from '../ui/format'
import { TargetRows, type Refusal, type RefusedRow, type Row } from './TargetRows'
import type { ListName } from './refusal'

const LANGUAGES = ['en', 'de', 'fr', 'es', 'it', 'pt', 'nl', 'pl', 'sv', 'da', 'fi', 'no', 'cs', 'tr', 'ru', 'uk', 'ar', 'he', 'hi', 'ja', 'ko', 'zh']
const languageNames = new Intl.DisplayNames(['en'], { type: 'language' })

/** The labels and refusal marks of one list of rows, as the link form works them out. */
export interface ListProps {
  legend: string
  keyLabel: string
  linkLabel: string
  addLabel: string
  rowNoun: string
  refused?: RefusedRow
  refusedAll?: string
  /** what the plan lacks for this list, in words: shown, and the list locked while it has no rows */
  locked?: string
}

const countryInput = (id: string, value: string, set: (v: string) => void, _label: string, bad?: Refusal) => (
  <select id={id} {...bad} value={value} onChange={(e) => set(e.target.value)}>
    <option value="">Choose a country</option>
    {/* a code saved before the list changed stays visible rather than silently becoming "Choose" */}
    {value && !COUNTRY_OPTIONS.some((c) => c.code === value) && <option value={value}>{countryName(value)}</option>}
    {COUNTRY_OPTIONS.map((c) => (
      <option key={c.code} value={c.code}>
        {c.name}
      </option>
    ))}
  </select>
)
const deviceInput = (id: string, value: string, set: (v: string) => void, _label: string, bad?: Refusal) => (
  <select id={id} {...bad} value={value} onChange={(e) => set(e.target.value)}>
    <option value="">Choose a device</option>
    {DEVICES.map((dv) => (
      <option key={dv}>{dv}</option>
    ))}
  </select>
)
const languageInput = (id: string, value: string, set: (v: string) => void, _label: string, bad?: Refusal) => (
  <select id={id} {...bad} value={value} onChange={(e) => set(e.target.value)}>
    <option value="">Choose a language</option>
    {LANGUAGES.map((l) => (
      <option key={l} value={l}>
        {languageNames.of(l)}
      </option>
    ))}
  </select>
)

/**
 * The link form's Targeting section: a country's, a device's and a language's own destinations.
 * The rows are the form's state (a submit sends them); this part only shows and edits them.
 */
export function TargetingSection(props: {
  /** open from the start (a link with targets) */
  open: boolean
  geo: Row[]
  device: Row[]
  language: Row[]
  onGeo: (rows: Row[]) => void
  onDevice: (rows: Row[]) => void
  onLanguage: (rows: Row[]) => void
  list: (name: ListName) => ListProps
}) {
  const { list } = props
  return (
    <details className="section" open={props.open}>
      <summary>Targeting</summary>
      <div>
        <TargetRows {...list('geotarget')} rows={props.geo} onChange={props.onGeo} keyInput={countryInput} />
        <TargetRows {...list('devicetarget')} rows={props.device} onChange={props.onDevice} keyInput={deviceInput} />
        <TargetRows {...list('languagetarget')} rows={props.language} onChange={props.onLanguage} keyInput={languageInput} />
      </div>
    </details>
  )
}
