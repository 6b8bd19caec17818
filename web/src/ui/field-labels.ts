/*
 * The API names the field it refuses first, by its body name ("domain must not contain spaces…",
 * "events: must name at least one event", "limits.links must not be negative"); a form says it
 * with the label the visitor sees instead ("Domain name must not contain spaces…").
 * links/refusal.ts does the same for the link form, which also marks the field.
 */

/** A form's labels by body name: a whole path (`limits.links`, `data.email`) or its first word. */
export type FieldLabels = Record<string, string>

/** A field path at the start of a message: words and entry numbers joined by dots, then a space, a colon or the end. */
export const NAMED = /^([a-z_][a-z0-9_]*)((?:\.[a-z0-9_]+)*)(?=[\s:]|$)/

/** `message` with the field it starts with said by the form's label; as it is when it names none of the form's. */
export function withLabels(message: string | undefined, labels: FieldLabels): string | undefined {
  const m = message ? NAMED.exec(message) : null
  // "foreground and background are too similar": a sentence about two fields stays as the API says it
  if (!message || !m || message.startsWith(' and ', m[0].length)) return message
  const label = labels[m[0]] ?? labels[m[1]]
  return label === undefined ? message : `${label}${message.slice(m[0].length)}`
}
