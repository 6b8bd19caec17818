/*
 * The field a refused form's message names, marked: aria-invalid (a red edge in styles.css) and the
 * message among its descriptions, while the message says it by the form's label (field-labels.ts).
 * The message takes focus (ErrorNote), so the visitor hears why; the marked field is described by
 * it when they go back to fix it. A new submit clears the mark with the message; a new refusal marks
 * what it names. The link form reads its lists and sections on top (links/refusal.ts).
 */
import { useId } from 'react'
import { namedField, type FieldLabels } from './field-labels'

/** What marks a control the API refused: aria-invalid, and the refusal's message among its descriptions. */
export interface Marks {
  'aria-invalid'?: true
  'aria-describedby'?: string
}

/** A control's marks: described by its hint, and when `refused` also marked and described by the message (`noteId`). */
export const marks = (refused: boolean, noteId: string, hint?: string): Marks => ({
  'aria-invalid': refused || undefined,
  'aria-describedby': [hint, refused ? noteId : undefined].filter(Boolean).join(' ') || undefined,
})

export interface Refusal {
  /** to spread on the control sending body name `name` (with its hint's id, which stays first) */
  field: (name: string, hint?: string) => Marks
  /** to spread on a fieldset of controls sending `name` (a list of checkboxes): described by the message */
  group: (name: string) => { 'aria-describedby'?: string }
  /** to spread on the form's ErrorNote: the message with the form's labels, and the id the marks point at */
  note: { message?: string; id: string }
}

/**
 * A form's refusal: `error` is the API's message of the last submit (useAction's), `labels` the
 * form's labels by body name. A message naming none of them marks nothing and is shown as it is.
 */
export function useRefusal(error: string | undefined, labels: FieldLabels): Refusal {
  const id = useId()
  const named = namedField(error, labels)
  return {
    field: (name, hint) => marks(named?.name === name, id, hint),
    group: (name) => ({ 'aria-describedby': named?.name === name ? id : undefined }),
    note: { message: named?.message ?? error, id },
  }
}
