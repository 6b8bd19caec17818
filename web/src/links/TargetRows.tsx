import type { ReactNode } from 'react'
import { Field } from '../ui/parts'

export interface Row {
  key: string
  link: string
}

/** Add/remove rows of "when <key> then <url>" (countries, devices, languages, parameters). */
export function TargetRows(props: {
  legend: string
  keyLabel: string
  linkLabel: string
  addLabel: string
  rows: Row[]
  onChange: (rows: Row[]) => void
  keyInput: (id: string, value: string, set: (v: string) => void, label: string) => ReactNode
  linkType?: 'url' | 'text'
  hint?: string
}) {
  const set = (i: number, patch: Partial<Row>) => props.onChange(props.rows.map((r, j) => (j === i ? { ...r, ...patch } : r)))
  return (
    <fieldset>
      <legend>{props.legend}</legend>
      {props.hint && <p className="hint">{props.hint}</p>}
      {props.rows.map((row, i) => (
        <div className="target-row" key={i}>
          <Field label={`${props.keyLabel} ${i + 1}`}>{(id) => props.keyInput(id, row.key, (v) => set(i, { key: v }), props.keyLabel)}</Field>
          <Field label={`${props.linkLabel} ${i + 1}`}>
            {(id) => (
              <input id={id} type={props.linkType ?? 'url'} value={row.link} onChange={(e) => set(i, { link: e.target.value })} placeholder={props.linkType === 'text' ? '' : 'https://'} />
            )}
          </Field>
          <button type="button" className="secondary" onClick={() => props.onChange(props.rows.filter((_, j) => j !== i))} aria-label={`Remove ${props.keyLabel.toLowerCase()} row ${i + 1}`}>
            Remove
          </button>
        </div>
      ))}
      <p>
        <button type="button" className="secondary small" onClick={() => props.onChange([...props.rows, { key: '', link: '' }])}>
          {props.addLabel}
        </button>
      </p>
    </fieldset>
  )
}
