/*
 * The API names the field it refuses first, by its body name ("domain must not contain spaces…",
 * "events: must name at least one event", "limits.links must not be negative"); a form says it
 * with the label the visitor sees instead ("Domain name must not contain spaces…"). A few name it
 * later in the sentence ("That slug is already taken…"): NAMED_LATER knows those.
 * refusal.ts marks the field it names; links/refusal.ts reads the link form's lists on top.
 */

/** A form's labels by body name: a whole path (`limits.links`, `data.email`) or its first word. */
export type FieldLabels = Record<string, string>

/** A field path at the start of a message: words and entry numbers joined by dots, then a space, a colon or the end. */
export const NAMED = /^([a-z_][a-z0-9_]*)((?:\.[a-z0-9_]+)*)(?=[\s:]|$)/

/**
 * The API's refusals that name their field later in the sentence, with that field's body name (the
 * messages of src/resources: campaigns/repo.ts, domains/repo.ts, admin/users.ts, admin/plans.ts,
 * account/index.ts, blocklist/index.ts). A form marks the field when it has it; the message stays
 * as the API says it. Read before the name at the start: a blocked keyword can be a body name.
 */
export const NAMED_LATER: readonly (readonly [RegExp, string])[] = [
  [/^That slug is already taken\b/, 'slug'],
  [/^That domain has already been added\b/, 'domain'],
  [/^That username is already taken\b/, 'username'],
  [/^That email address is already registered\b/, 'email'],
  [/^That API key is already in use\b/, 'apikey'],
  [/^A plan with that name already exists\b/, 'name'],
  [/ is already on the blocklist\.$/, 'value'],
]

/**
 * The form's field `message` starts with (its body name in `labels`: the whole path, else its first
 * word) and the message saying it by its label. None when it names none of the form's, or two
 * ("foreground and background are too similar": a sentence about two fields stays as the API says
 * it, and marks neither).
 */
export function namedField(message: string | undefined, labels: FieldLabels): { name: string; message: string } | undefined {
  if (!message) return undefined
  const later = NAMED_LATER.find(([pattern]) => pattern.test(message))?.[1]
  if (later !== undefined) return Object.hasOwn(labels, later) ? { name: later, message } : undefined
  const m = NAMED.exec(message)
  if (!m || message.startsWith(' and ', m[0].length)) return undefined
  const name = [m[0], m[1]].find((n) => Object.hasOwn(labels, n))
  return name === undefined ? undefined : { name, message: `${labels[name]}${message.slice(m[0].length)}` }
}

/** `message` with the field it starts with said by the form's label; as it is when it names none of the form's. */
export const withLabels = (message: string | undefined, labels: FieldLabels): string | undefined => namedField(message, labels)?.message ?? message
