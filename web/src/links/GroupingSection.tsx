import type { Marks } from '../ui/refusal'
import { Field, NamedOptions } from '../ui/parts'
import type { LinkOptions } from './options'
import { LABELS } from './refusal'

/**
 * The link form's "Channel, campaign and pixels" section. The values are the form's state (a
 * submit sends them); this part shows and edits them. A campaign or pixels the plan lacks are
 * locked while the link has none: a link that has them (its plan changed since) can still drop them.
 */
export function GroupingSection(props: {
  options: LinkOptions
  channel: string
  campaign: string
  pixels: number[]
  onChannel: (v: string) => void
  onCampaign: (v: string) => void
  onPixels: (v: number[]) => void
  /** the marks of a refused field, by body name (`pixels.7` for one pixel) */
  refusal: (field: string, hint?: string) => Marks
  /** the id of the message when the API refused the pixels as a whole */
  pixelsRefused?: string
  /** what the plan lacks, in words: the campaign (`bundle`) and the pixels */
  locks: { campaign?: string; pixels?: string }
}) {
  const { options: o, refusal, locks } = props
  const pixelsLocked = !!locks.pixels && props.pixels.length === 0
  return (
    <details className="section">
      <summary>Channel, campaign and pixels</summary>
      <div>
        <div className="row">
          <Field label={LABELS.channel}>
            {(id) => (
              <select id={id} {...refusal('channel')} value={props.channel} onChange={(e) => props.onChannel(e.target.value)}>
                <option value="">None</option>
                <NamedOptions items={o.channels} />
              </select>
            )}
          </Field>
          <Field label={LABELS.campaign} hint={locks.campaign}>
            {(id, hint) => (
              <select id={id} {...refusal('campaign', hint)} value={props.campaign} onChange={(e) => props.onCampaign(e.target.value)} disabled={!!locks.campaign && props.campaign === ''}>
                <option value="">None</option>
                <NamedOptions items={o.campaigns} />
              </select>
            )}
          </Field>
        </div>
        <fieldset aria-describedby={props.pixelsRefused} data-refused={props.pixelsRefused ? true : undefined} disabled={pixelsLocked}>
          <legend>{LABELS.pixels}</legend>
          {locks.pixels && <p className="hint">{locks.pixels}</p>}
          {!locks.pixels && o.pixels.length === 0 && <p className="hint">You have no pixels yet; add them on the Pixels page.</p>}
          {o.pixels.map((p) => (
            <label className="check" key={p.id}>
              <input
                type="checkbox"
                {...refusal(`pixels.${p.id}`)}
                checked={props.pixels.includes(p.id)}
                onChange={(e) => props.onPixels(e.target.checked ? [...props.pixels, p.id] : props.pixels.filter((x) => x !== p.id))}
              />
              {p.name} <span className="sub">({p.type})</span>
            </label>
          ))}
        </fieldset>
      </div>
    </details>
  )
}
