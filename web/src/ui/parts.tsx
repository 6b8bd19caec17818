import { useEffect, useId, useLayoutEffect, useRef, useState, type ReactNode } from 'react'
import { announce } from './announce'
import { keepReturnFocus, moveFocus } from './focus'

/** A labelled form field; the label text is the field's accessible name. */
export function Field(props: { label: string; hint?: string; error?: string; children: (id: string, describedBy?: string) => ReactNode; className?: string }) {
  const id = useId()
  const hintId = props.hint ? `${id}-hint` : undefined
  return (
    <div className={`field ${props.className ?? ''}`}>
      <label htmlFor={id}>{props.label}</label>
      {props.children(id, hintId)}
      {props.hint && (
        <p className="hint" id={hintId}>
          {props.hint}
        </p>
      )}
    </div>
  )
}

/** A select's options for a list of named objects (campaigns, channels, plans): the id as value, the name shown. */
export function NamedOptions({ items }: { items?: readonly { id: number; name: string }[] }) {
  return items?.map((it) => (
    <option key={it.id} value={it.id}>
      {it.name}
    </option>
  ))
}

export function Loading({ what = 'Loading', className = '' }: { what?: string; className?: string }) {
  return (
    <p className={`loading ${className}`} role="status">
      <span className="spinner" aria-hidden="true" /> {what}…
    </p>
  )
}

/**
 * The form whose submit the page is answering, until the visitor acts again (a key or a click
 * before the answer means they have moved on, and their focus stays where they put it).
 */
let submitted: HTMLFormElement | null = null
document.addEventListener('submit', (e) => (submitted = e.target instanceof HTMLFormElement ? e.target : null), true)
for (const type of ['keydown', 'pointerdown']) document.addEventListener(type, () => (submitted = null), true)

/**
 * Whether a note appearing now answers the last submit: it is inside that form, or that form is
 * still on the page and focus has fallen to <body> (its button was disabled while the request ran).
 */
function answersSubmit(note: HTMLElement): boolean {
  if (!submitted?.isConnected) return false
  return submitted.contains(note) || document.activeElement === null || document.activeElement === document.body
}

/**
 * The API's message, as the page's answer to a refused action. A refused submit moves focus here,
 * so the visitor hears and sees why and is not left on <body>; `id` lets a field it names point
 * at it (aria-describedby).
 */
export function ErrorNote({ message, onRetry, id }: { message?: string; onRetry?: () => void; id?: string }) {
  const note = useRef<HTMLDivElement>(null)
  useEffect(() => {
    if (!message || !note.current || !answersSubmit(note.current)) return
    submitted = null
    moveFocus(note.current)
  }, [message])
  if (!message) return null
  return (
    <div className="error-note" role="alert" tabIndex={-1} id={id} ref={note}>
      <p>{message}</p>
      {onRetry && (
        <button type="button" className="secondary" onClick={onRetry}>
          Try again
        </button>
      )}
    </div>
  )
}

/**
 * A value that may be very long (a 2,000-character destination, a 255-character title, none of
 * it with spaces): it wraps anywhere and shows `lines` lines, with a "Show all" button when there
 * is more. The whole text is always in the page, so screen readers and find-in-page get all of it.
 */
export function LongText({ children, what, lines = 2, className = '' }: { children: ReactNode; what: string; lines?: number; className?: string }) {
  const box = useRef<HTMLDivElement>(null)
  const [open, setOpen] = useState(false)
  const [more, setMore] = useState(false)
  useLayoutEffect(() => {
    const el = box.current
    if (!el || open) return
    const measure = () => setMore(el.scrollHeight > el.clientHeight + 1)
    measure()
    // a narrower window may clip a value that fitted
    const watch = new ResizeObserver(measure)
    watch.observe(el)
    return () => watch.disconnect()
  }, [children, open])
  return (
    <div className={`long-text ${className}`}>
      <div ref={box} className={open ? undefined : 'clamped'} style={open ? undefined : { WebkitLineClamp: lines }}>
        {/* one inline run: the clamping box stacks each child it has on lines of its own */}
        <span>{children}</span>
      </div>
      {(more || open) && (
        <button type="button" className="link small" aria-expanded={open} aria-label={`${open ? 'Show less' : 'Show all'} of ${what}`} onClick={() => setOpen(!open)}>
          {open ? 'Show less' : 'Show all'}
        </button>
      )}
    </div>
  )
}

/**
 * What a list says when it has nothing. Its heading nests under the one it is in: level 2 under the
 * page's h1 (the default), 3 inside a section or a dialog titled with an h2.
 */
export function EmptyState({ title, children, action, level = 2 }: { title: string; children?: ReactNode; action?: ReactNode; level?: 2 | 3 }) {
  const Heading = level === 3 ? 'h3' : 'h2'
  return (
    <div className="empty">
      <Heading>{title}</Heading>
      {children && <p>{children}</p>}
      {action}
    </div>
  )
}

/**
 * Copies `value`. Its accessible name starts with the visible label and names what is copied:
 * `of` when given ("Copy secret of https://…"), else the value itself. A secret passes `of`, so the
 * secret never becomes part of the button's name.
 */
export function CopyButton({ value, label = 'Copy', what = 'Copied', of }: { value: string; label?: string; what?: string; of?: string }) {
  const [done, setDone] = useState(false)
  async function copy() {
    try {
      await navigator.clipboard.writeText(value)
    } catch {
      // clipboard refused (http, permissions): select-and-copy through a hidden field
      const area = document.createElement('textarea')
      area.value = value
      area.setAttribute('readonly', '')
      area.className = 'offscreen'
      document.body.append(area)
      area.select()
      document.execCommand('copy')
      area.remove()
    }
    setDone(true)
    announce(`${what} to the clipboard.`)
    setTimeout(() => setDone(false), 1500)
  }
  return (
    <button type="button" className="secondary small" onClick={copy} aria-label={`${done ? 'Copied' : label}${of === undefined ? `: ${value}` : of ? ` ${of}` : ''}`}>
      {done ? 'Copied' : label}
    </button>
  )
}

/** "1 link", "2 links", "1 entry": `noun` is the plural. */
export const counted = (n: number, noun: string) => `${n.toLocaleString()} ${n !== 1 ? noun : noun.endsWith('ies') ? `${noun.slice(0, -3)}y` : noun.replace(/s$/, '')}`

/**
 * A pager's button. One that runs out while it has focus (Next page onto the last page) stays
 * focusable, marked aria-disabled, so focus stays on the pager instead of dropping to <body>; it
 * is disabled as usual once focus leaves it.
 */
function PageButton({ off, onClick, children }: { off: boolean; onClick: () => void; children: ReactNode }) {
  const [focused, setFocused] = useState(false)
  return (
    <button type="button" className="secondary" disabled={off && !focused} aria-disabled={off || undefined} onFocus={() => setFocused(true)} onBlur={() => setFocused(false)} onClick={() => !off && onClick()}>
      {children}
    </button>
  )
}

/**
 * Pages of a list. With the list's `total` (every paginated list of the API) it says "Page 2 of 5 ·
 * 230 links"; a list that tells no total (GET /api/users) passes `more`, whether a full page came
 * back, and the pager says "Page 2". `onPage`'s `correction` is the pager's own move off a page past
 * the end (a page kept in the address replaces its history entry then).
 */
export function Pager(props: { page: number; onPage: (p: number, correction?: boolean) => void; noun: string } & ({ maxPage: number; total: number } | { more: boolean })) {
  const { page, onPage } = props
  const known = 'total' in props
  const total = known ? props.total : 0
  const maxPage = known ? props.maxPage : props.more ? page + 1 : page
  // deleting the last item of the last page leaves a page past the end: show the new last page instead
  useEffect(() => {
    if (known && total > 0 && page > maxPage) onPage(maxPage, true)
  }, [known, page, maxPage, total, onPage])
  if (known && total === 0) return null
  if (maxPage <= 1) return known ? <p className="pager">{counted(total, props.noun)}</p> : null
  return (
    // a group, not a landmark: the dashboard's one navigation landmark is its menu (DECISIONS 10.1)
    <div role="group" className="pager" aria-label={`Pages of ${props.noun}`}>
      <PageButton off={page <= 1} onClick={() => onPage(page - 1)}>
        Previous page
      </PageButton>
      <span>{known ? `Page ${page} of ${maxPage} · ${counted(total, props.noun)}` : `Page ${page}`}</span>
      <PageButton off={page >= maxPage} onClick={() => onPage(page + 1)}>
        Next page
      </PageButton>
    </div>
  )
}

/**
 * A list loaded whole in one request of the API's largest page (1,000) says when it holds more than
 * that, rather than silently showing the first thousand.
 */
export function MoreThanShown({ shown, total, noun }: { shown: number; total: number; noun: string }) {
  if (total <= shown) return null
  return (
    <p className="note">
      Showing {shown.toLocaleString()} of {counted(total, noun)}.
    </p>
  )
}

const FIRST_FIELD = '[data-autofocus], .dialog-body input:not([type=hidden]):not([disabled]), .dialog-body select, .dialog-body textarea'

/**
 * showModal focuses the first focusable element (the close button); the task's first field is more
 * useful. A form still loading (the link form waits for its options) gets it when it appears, unless
 * the visitor has moved focus meanwhile. Returns what stops the wait.
 */
function focusFirstField(d: HTMLDialogElement): () => void {
  const first = d.querySelector<HTMLElement>(FIRST_FIELD)
  if (first) {
    first.focus()
    return () => {}
  }
  const openedOn = document.activeElement
  const watch = new MutationObserver(() => {
    const field = d.querySelector<HTMLElement>(FIRST_FIELD)
    if (!field) return
    watch.disconnect()
    if (document.activeElement === openedOn || document.activeElement === d) field.focus()
  })
  watch.observe(d, { childList: true, subtree: true })
  return () => watch.disconnect()
}

/**
 * A modal panel on the native <dialog>: focus moves in, Escape closes, focus returns after: to what
 * opened it, or to the page's main action when that is gone (focus.ts keepReturnFocus).
 */
export function Modal(props: { title: string; open: boolean; onClose: () => void; children: ReactNode; wide?: boolean }) {
  const ref = useRef<HTMLDialogElement>(null)
  /** what had focus when the dialog opened (undefined: not open) */
  const opener = useRef<Element | null | undefined>(undefined)
  const titleId = useId()
  useEffect(() => {
    const d = ref.current
    if (!d) return
    if (props.open && !d.open) {
      opener.current = document.activeElement
      d.showModal()
      return focusFirstField(d)
    }
    if (props.open) return
    // closed by the page here (close() returns focus), or already by Escape
    if (d.open) d.close()
    if (opener.current === undefined) return
    keepReturnFocus(opener.current)
    opener.current = undefined
  }, [props.open])
  return (
    <dialog ref={ref} className={props.wide ? 'wide' : ''} aria-labelledby={titleId} onClose={props.onClose} onCancel={props.onClose}>
      {props.open && (
        <>
          <header className="dialog-head">
            <h2 id={titleId}>{props.title}</h2>
            <button type="button" className="ghost" onClick={props.onClose} aria-label="Close">
              ✕
            </button>
          </header>
          <div className="dialog-body">{props.children}</div>
        </>
      )}
    </dialog>
  )
}

export function Badge({ children, tone = 'plain' }: { children: ReactNode; tone?: 'plain' | 'good' | 'warn' }) {
  return <span className={`badge ${tone}`}>{children}</span>
}

export function PageHead({ title, children }: { title: string; children?: ReactNode }) {
  useEffect(() => {
    document.title = `${title} · Kurz`
  }, [title])
  return (
    <div className="page-head">
      <h1 tabIndex={-1} id="page-title">
        {title}
      </h1>
      {children && <div className="page-actions">{children}</div>}
    </div>
  )
}

/** A page an account without admin privileges opened (its address typed or kept): a page of its own. */
export function AdminsOnly() {
  return (
    <>
      <PageHead title="Admins only" />
      <p>This page needs an account with admin privileges.</p>
    </>
  )
}
