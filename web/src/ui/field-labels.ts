/*
 * The API names the field it refuses first, by its body name ("domain must not contain spaces…",
 * "events: must name at least one event", "limits.links must not be negative"); a form says it
 * with the label the visitor sees instead ("Domain name must not contain spaces…").
 * refusal.ts marks the field it names; links/refusal.ts reads the link form's lists on top.
 */

/** A form's labels by body name: a whole path (`limits.links`, `data.email`) or its first word. */
export type FieldLabels = Record<string, string>

/** A field path at the start of a message: words and entry numbers joined by dots, then a space, a colon or the end. */
export const NAMED = /^([a-z_][a-z0-9_]*)((?:\.[a-z0-9_]+)*)(?=[\s:]|$)/

/**
 * The form's field `message` starts with (its body name in `labels`: the whole path, else its first
 * word) and the message saying it by its label. None when it names none of the form's, or two
 * ("foreground and background are too similar": a sentence about two fields stays as the API says
 * it, and marks neither).
 */
export function namedField(message: string | undefined, labels: FieldLabels): { name: string; message: string } | undefined {
  const m = message ? NAMED.exec(message) : null
  if (!message || !m || message.startsWith(' and ', m[0].length)) return undefined
  const name = [m[0], m[1]].find((n) => Object.hasOwn(labels, n))
  return name === undefined ? undefined : { name, message: `${labels[name]}${message.slice(m[0].length)}` }
}

/** `message` with the field it starts with said by the form's label; as it is when it names none of the form's. */
export const withLabels = (message: string | undefined, labels: FieldLabels): string | undefined => namedField(message, labels)?.message ?? message
