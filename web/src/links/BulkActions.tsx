import { useEffect, useLayoutEffect, useRef, useState, type FormEvent } from 'react'
import { Link } from 'react-router'
import { api, ApiError } from '../api/client'
import type { V1Link } from '../api/types'
import { announce } from '../ui/announce'
import { useConfirm } from '../ui/confirm'
import { focusPageTitle, moveFocus } from '../ui/focus'
import { counted, EmptyState, Field, Loading, Modal, NamedOptions } from '../ui/parts'
import type { LinkOptions } from './options'
import { usePlan } from '../plan'

/** The links ticked on the page of results shown, and whether a bulk action is running on them. */
export interface Selection {
  ids: ReadonlySet<number>
  busy: boolean
  setBusy: (busy: boolean) => void
  toggle: (id: number, on: boolean) => void
  /** exactly these ids (an empty list clears) */
  only: (ids: number[]) => void
}

/**
 * Selection is per page of results: `page` names it (search, sort, filters, page number), and a new
 * one starts with nothing ticked. An id the list no longer shows (deleted, moved out of a filter)
 * is dropped, so an action never acts on a link the visitor cannot see.
 */
export function useSelection(page: string, shown: number[]): Selection {
  const [ids, setIds] = useState<ReadonlySet<number>>(new Set())
  const [busy, setBusy] = useState(false)
  const shownKey = shown.join(',')
  useEffect(() => setIds(new Set()), [page])
  useEffect(() => {
    setIds((prev) => {
      const keep = [...prev].filter((id) => shown.includes(id))
      return keep.length === prev.size ? prev : new Set(keep)
    })
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [shownKey])
  return {
    ids,
    busy,
    setBusy,
    toggle: (id, on) =>
      setIds((prev) => {
        const next = new Set(prev)
        if (on) next.add(id)
        else next.delete(id)
        return next
      }),
    only: (list) => setIds(new Set(list)),
  }
}

/** A row's checkbox. */
export function RowCheck({ selection: sel, link }: { selection: Selection; link: V1Link }) {
  return (
    <input type="checkbox" className="pick" aria-label={`Select ${link.short_url}`} checked={sel.ids.has(link.id)} disabled={sel.busy} onChange={(e) => sel.toggle(link.id, e.target.checked)} />
  )
}

/** One bulk action: how its progress and outcome read, and the request it makes for one link. */
interface Job {
  doing: (i: number, n: number) => string
  /** "deleted", "added to campaign Spring" */
  done: string
  call: (link: V1Link) => Promise<unknown>
  /** the links done leave the list (the page may be left empty) */
  removes?: boolean
}

interface Report {
  summary: string
  failed: { link: V1Link; message: string }[]
  /** why the run ended before the last link (the session ended, the rate limit) */
  stopped?: string
}

/** A session that ended (the client is on its way to the sign-in form) or a spent rate budget: the links after it would fail the same way. */
const stops = (err: unknown) => err instanceof ApiError && (err.status === 401 || err.status === 429)

/**
 * "Select all on this page", and, with something selected, the bar of what can be done to it:
 * delete, add to a campaign (when the plan has campaigns) or a channel. Each link is its own request, one after the other (the
 * session's budget is 600 a minute, and a page holds 20), through the same API as everything else;
 * a refused link is listed with the API's message and stays selected, the others go through.
 */
export function BulkActions({ selection: sel, links, options, onDone }: { selection: Selection; links: V1Link[]; options?: LinkOptions; onDone: () => void }) {
  const confirm = useConfirm()
  const { locked } = usePlan()
  const [asking, setAsking] = useState<'campaign' | 'channel'>()
  const [progress, setProgress] = useState('')
  const [report, setReport] = useState<Report>()
  const all = useRef<HTMLInputElement>(null)
  const bar = useRef<HTMLDivElement>(null)
  const reportBox = useRef<HTMLDivElement>(null)
  const focusNext = useRef<'report' | 'all' | 'title'>(undefined)
  // a run ends with the page it runs on (another page opened, the session gone)
  const alive = useRef(true)
  useEffect(() => {
    alive.current = true
    return () => void (alive.current = false)
  }, [])

  const picked = links.filter((l) => sel.ids.has(l.id))
  const count = picked.length
  const everything = count > 0 && count === links.length
  useEffect(() => {
    if (all.current) all.current.indeterminate = count > 0 && !everything
  }, [count, everything])

  async function run(job: Job) {
    const batch = [...picked]
    sel.setBusy(true)
    setReport(undefined)
    const failed: Report['failed'] = []
    let ok = 0
    let stopped: string | undefined
    let next = 0
    for (; next < batch.length && alive.current; next++) {
      setProgress(job.doing(next + 1, batch.length))
      try {
        await job.call(batch[next])
        ok++
      } catch (err) {
        if (stops(err)) {
          stopped = (err as Error).message
          break
        }
        failed.push({ link: batch[next], message: (err as Error).message })
      }
    }
    sel.setBusy(false)
    if (!alive.current) return
    setProgress('')
    // what stays selected: the refused links, and those a stop left undone
    const keep = [...failed.map((f) => f.link.id), ...(stopped ? batch.slice(next).map((l) => l.id) : [])]
    const summary = keep.length === 0 ? `${counted(batch.length, 'links')} ${job.done}.` : `${ok.toLocaleString()} of ${counted(batch.length, 'links')} ${job.done}.`
    if (failed.length || stopped) setReport({ summary, failed, stopped })
    announce(keep.length === 0 ? summary : `${summary} ${failed.length ? `${counted(failed.length, 'links')} failed` : 'It stopped'}: see the list above your links.`)
    // focus in the bar, which goes with the selection, stays on the list; refusals get it on their
    // list, which says which and why (moved once the run's disabled checkboxes are enabled again)
    if (bar.current?.contains(document.activeElement) || document.activeElement === document.body) {
      focusNext.current = keep.length > 0 ? 'report' : job.removes && ok === links.length ? 'title' : 'all'
    }
    sel.only(keep)
    onDone()
  }

  // before the page's own watchers see focus dropped with the bar (confirm.tsx, focus.ts)
  useLayoutEffect(() => {
    if (!focusNext.current || sel.busy) return
    const where = focusNext.current
    focusNext.current = undefined
    if (where === 'title' || !moveFocus(where === 'report' ? reportBox.current : all.current)) focusPageTitle()
  })

  async function onDelete() {
    if (sel.busy) return
    const yes = await confirm({
      title: count === 1 ? 'Delete 1 link?' : `Delete ${count} links?`,
      message: <DeleteList links={picked} />,
      confirm: count === 1 ? 'Delete 1 link' : `Delete ${count} links`,
    })
    if (!yes) return
    await run({ doing: (i, n) => `Deleting ${i} of ${n}…`, done: 'deleted', removes: true, call: (l) => api.del(`/api/url/${l.id}/delete`) })
  }

  function onAssign(kind: 'campaign' | 'channel', id: number, name: string) {
    setAsking(undefined)
    void run({
      doing: (i, n) => `Adding ${i} of ${n} to ${name}…`,
      done: `added to ${kind} ${name}`,
      call: (l) => api.post(kind === 'campaign' ? `/api/campaign/${id}/assign/${l.id}` : `/api/channel/${id}/assign/links/${l.id}`),
    })
  }

  // while a run goes, the buttons stay focusable (focus is not dropped on <body>) but do nothing
  const off = sel.busy || undefined
  return (
    <>
      {report && (
        <div className="bulk-report" role="group" aria-label="Bulk action result" tabIndex={-1} ref={reportBox}>
          <p>
            <strong>{report.summary}</strong>
            {report.failed.length > 0 && ` ${report.failed.length === 1 ? 'This one' : 'These'} failed; links still in the list stay selected:`}
          </p>
          {report.failed.length > 0 && (
            <ul>
              {report.failed.map((f) => (
                <li key={f.link.id}>
                  <strong className="short">{f.link.short_url}</strong> ({f.link.alias}): {f.message}
                </li>
              ))}
            </ul>
          )}
          {report.stopped && <p>It stopped there: {report.stopped} The links not done yet stay selected.</p>}
          <button type="button" className="secondary small" onClick={() => (setReport(undefined), moveFocus(all.current) || focusPageTitle())}>
            Dismiss
          </button>
        </div>
      )}
      {links.length > 0 && (
        // the bar is the list's head row with links selected: one box, so the checkbox keeps its
        // place (and focus) as the bar comes and goes
        <div className={`bulk-head${count > 0 ? ' active' : ''}`} ref={bar} {...(count > 0 ? { role: 'region', 'aria-label': 'Selected links', 'aria-busy': sel.busy } : {})}>
          <label className="check">
            <input ref={all} type="checkbox" checked={everything} disabled={sel.busy} onChange={(e) => sel.only(e.target.checked ? links.map((l) => l.id) : [])} />
            Select all on this page
          </label>
          {count > 0 && (
            <>
              <p className="bulk-count" aria-live="polite">
                {progress ? (
                  <>
                    <span className="spinner" aria-hidden="true" /> {progress}
                  </>
                ) : (
                  `${count} selected`
                )}
              </p>
              <div className="bulk-buttons">
                <button type="button" className="danger small" aria-disabled={off} onClick={onDelete}>
                  Delete selected
                </button>
                {/* a plan without campaigns cannot assign links to one */}
                {!locked('bundle') && (
                  <button type="button" className="secondary small" aria-disabled={off} onClick={() => !sel.busy && setAsking('campaign')}>
                    Add to campaign…
                  </button>
                )}
                <button type="button" className="secondary small" aria-disabled={off} onClick={() => !sel.busy && setAsking('channel')}>
                  Add to channel…
                </button>
                <button type="button" className="ghost small" aria-disabled={off} onClick={() => !sel.busy && (moveFocus(all.current), sel.only([]))}>
                  Clear selection
                </button>
              </div>
            </>
          )}
        </div>
      )}
      <Modal title={asking === 'channel' ? `Add ${counted(count, 'links')} to a channel` : `Add ${counted(count, 'links')} to a campaign`} open={!!asking} onClose={() => setAsking(undefined)}>
        {asking && <PickTarget kind={asking} choices={options?.[asking === 'campaign' ? 'campaigns' : 'channels']} onPick={(id, name) => onAssign(asking, id, name)} onCancel={() => setAsking(undefined)} />}
      </Modal>
    </>
  )
}

/** The confirmation's body: how many, and which (the first few by name). */
function DeleteList({ links }: { links: V1Link[] }) {
  const SHOWN = 5
  return (
    <>
      <p>
        {links.length === 1 ? 'This link stops' : `These ${links.length} links stop`} working and {links.length === 1 ? 'its' : 'their'} statistics are deleted. This cannot be undone.
      </p>
      <ul className="bulk-names">
        {links.slice(0, SHOWN).map((l) => (
          <li key={l.id}>{l.short_url}</li>
        ))}
        {links.length > SHOWN && <li>and {counted(links.length - SHOWN, 'links')} more</li>}
      </ul>
    </>
  )
}

/** The dialog's form: a campaign or channel of the account, or where to make one when there is none. */
function PickTarget({ kind, choices, onPick, onCancel }: { kind: 'campaign' | 'channel'; choices?: { id: number; name: string }[]; onPick: (id: number, name: string) => void; onCancel: () => void }) {
  const [value, setValue] = useState('')
  const Kind = kind === 'campaign' ? 'Campaign' : 'Channel'
  if (!choices) return <Loading what={`Loading your ${kind}s`} />
  if (choices.length === 0) {
    return (
      <EmptyState level={3} title={`No ${kind}s yet`} action={<Link className="button secondary" to={`/${kind}s`}>Go to {Kind}s</Link>}>
        Create a {kind} on the {Kind}s page first; then select links here and add them to it.
      </EmptyState>
    )
  }
  function submit(e: FormEvent) {
    e.preventDefault()
    const target = choices!.find((c) => String(c.id) === value)
    if (target) onPick(target.id, target.name)
  }
  return (
    <form onSubmit={submit}>
      <Field label={Kind} hint={kind === 'campaign' ? 'A link is in one campaign at a time: a link in another campaign moves to this one.' : 'A link may be in several channels: it keeps the ones it is in.'}>
        {(id, hint) => (
          <select id={id} aria-describedby={hint} value={value} onChange={(e) => setValue(e.target.value)} required>
            <option value="">Choose a {kind}</option>
            <NamedOptions items={choices} />
          </select>
        )}
      </Field>
      <div className="actions">
        <button type="button" className="secondary" onClick={onCancel}>
          Cancel
        </button>
        <button type="submit">Add to {kind}</button>
      </div>
    </form>
  )
}
