import { useEffect, useRef, type ReactNode } from 'react'
import { moveFocus } from '../ui/focus'
import { Field } from '../ui/parts'
import type { Marks } from '../ui/refusal'

export interface Row {
  key: string
  link: string
}

/** What marks a field the API refused: aria-invalid, and the refusal's message among its descriptions. */
export type Refusal = Marks

/** The row and part (its key or its URL) the API's message names. */
export interface RefusedRow {
  index: number
  part: 'key' | 'link'
  refusal: Refusal
}

/** Add/remove rows of "when <key> then <url>" (countries, devices, languages, parameters). */
export function TargetRows(props: {
  legend: string
  keyLabel: string
  linkLabel: string
  addLabel: string
  /** what one row is called in its Remove button's name: "Remove <rowNoun> row 1" */
  rowNoun: string
  rows: Row[]
  onChange: (rows: Row[]) => void
  keyInput: (id: string, value: string, set: (v: string) => void, label: string, refusal?: Refusal) => ReactNode
  linkType?: 'url' | 'text'
  hint?: string
  refused?: RefusedRow
  /** the id of the message refusing the whole list ("must have at most 100 entries") */
  refusedAll?: string
  /**
   * What the plan lacks for this list, said in place of the hint. The list is locked while it has
   * no rows; a link that has rows (its plan changed since) can still remove them.
   */
  locked?: string
}) {
  const set = (i: number, patch: Partial<Row>) => props.onChange(props.rows.map((r, j) => (j === i ? { ...r, ...patch } : r)))
  const box = useRef<HTMLFieldSetElement>(null)
  // where focus goes once the rows change: a removed row's button goes with it (focus would drop to
  // <body>), and a new row is for typing in
  const next = useRef<{ add: true } | { removed: number }>(undefined)
  useEffect(() => {
    const to = next.current
    next.current = undefined
    const rows = box.current?.querySelectorAll<HTMLElement>('.target-row')
    if (!to || !rows) return
    if ('add' in to) return void moveFocus(rows[rows.length - 1]?.querySelector<HTMLElement>('input, select, textarea'))
    // the previous row's Remove, else the row that took the removed one's place, else Add
    const row = rows[Math.max(0, to.removed - 1)]
    moveFocus(row ? row.querySelector<HTMLElement>('button.remove') : box.current?.querySelector<HTMLElement>('button.add'))
  }, [props.rows.length])
  const add = () => {
    next.current = { add: true }
    props.onChange([...props.rows, { key: '', link: '' }])
  }
  const remove = (i: number) => {
    next.current = { removed: i }
    props.onChange(props.rows.filter((_, j) => j !== i))
  }
  const refusal = (i: number, part: RefusedRow['part']) => (props.refused?.index === i && props.refused.part === part ? props.refused.refusal : undefined)
  return (
    <fieldset ref={box} aria-describedby={props.refusedAll} data-refused={props.refusedAll ? true : undefined} disabled={!!props.locked && props.rows.length === 0}>
      <legend>{props.legend}</legend>
      {(props.locked ?? props.hint) && <p className="hint">{props.locked ?? props.hint}</p>}
      {props.rows.map((row, i) => (
        <div className="target-row" key={i}>
          <Field label={`${props.keyLabel} ${i + 1}`}>{(id) => props.keyInput(id, row.key, (v) => set(i, { key: v }), props.keyLabel, refusal(i, 'key'))}</Field>
          <Field label={`${props.linkLabel} ${i + 1}`}>
            {(id) => (
              <input id={id} {...refusal(i, 'link')} type={props.linkType ?? 'url'} value={row.link} onChange={(e) => set(i, { link: e.target.value })} placeholder={props.linkType === 'text' ? '' : 'https://'} />
            )}
          </Field>
          <button type="button" className="secondary remove" onClick={() => remove(i)} aria-label={`Remove ${props.rowNoun} row ${i + 1}`}>
            Remove
          </button>
        </div>
      ))}
      <p>
        <button type="button" className="secondary small add" onClick={add}>
          {props.addLabel}
        </button>
      </p>
    </fieldset>
  )
}
