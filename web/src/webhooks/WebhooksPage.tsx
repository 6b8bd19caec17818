import { useState, type FormEvent } from 'react'
import { api, qs } from '../api/client'
import type { ListOf } from '../api/types'
import { announce } from '../ui/announce'
import { useConfirm } from '../ui/confirm'
import { formatDate, formatDateTime, parseApiDate } from '../ui/format'
import { useAction, useLoad } from '../ui/hooks'
import { Badge, CopyButton, counted, EmptyState, ErrorNote, Field, Loading, Modal, MoreThanShown, PageHead, Pager } from '../ui/parts'
import { useRefusal } from '../ui/refusal'
import { idParam, pageParam, useQueryState } from '../ui/query'
import { useApiPaths } from '../ui/routes-available'
import { NotYet } from './NotYet'
import type { presentDelivery, presentWebhook } from '../../../src/resources/webhooks/present.js'
import type { WebhookEvent } from '../../../src/db/schema/webhooks.js'
import './webhooks.css'

/** The webhook form's labels by body name: an API message names its field by the latter. */
const LABELS = {
  url: 'Endpoint URL',
  description: 'Description',
  events: 'Events',
}

/** Response shapes from the server's presenters (type-only: nothing of the server is bundled). */
type Webhook = ReturnType<typeof presentWebhook>
type Delivery = ReturnType<typeof presentDelivery>
const EVENTS = ['link.created', 'link.updated', 'link.deleted', 'link.clicked', 'qr.created', 'qr.scanned', 'link.health'] as const satisfies readonly WebhookEvent[]

export function WebhooksPage() {
  const paths = useApiPaths()
  const available = paths.data?.has('/api/webhooks')
  return (
    <>
      <PageHead title="Webhooks" />
      <p className="sub">Kurz calls your URL with a signed JSON body when links change, are clicked or are scanned.</p>
      {paths.loading && <Loading />}
      {paths.data && !available && <NotYet what="Webhooks" />}
      {available && <WebhookList />}
    </>
  )
}

function WebhookList() {
  const list = useLoad(() => api.get<ListOf<'webhooks', Webhook>>('/api/webhooks?limit=1000'), [])
  const [editing, setEditing] = useState<Webhook | 'new' | null>(null)
  // the webhook whose deliveries are open, and their page, live in the address (?deliveries=3&page=2)
  const { params, set } = useQueryState()
  const deliveriesId = idParam(params.get('deliveries'))
  const remove = useAction()
  const confirm = useConfirm()
  const rows = list.data?.data.webhooks
  const deliveriesOf = rows?.find((w) => String(w.id) === deliveriesId)
  const setDeliveriesOf = (w?: Webhook) => set({ deliveries: w?.id ?? '' })
  async function onDelete(w: Webhook) {
    if (!(await confirm({ title: 'Delete this webhook?', message: <p>Kurz stops calling <strong className="wrap-anywhere">{w.url}</strong>.</p>, confirm: 'Delete webhook' }))) return
    if (await remove.run(() => api.del(`/api/webhook/${w.id}/delete`))) {
      announce('Webhook deleted.')
      list.reload()
    }
  }
  async function onToggle(w: Webhook) {
    if (await remove.run(() => api.put(`/api/webhook/${w.id}/update`, { enabled: !w.enabled }))) {
      announce(w.enabled ? 'Webhook disabled.' : 'Webhook enabled.')
      list.reload()
    }
  }
  return (
    <>
      <div className="toolbar">
        <button type="button" onClick={() => setEditing('new')}>New webhook</button>
      </div>
      <ErrorNote message={list.error ?? remove.error} onRetry={list.error ? list.reload : undefined} />
      {list.loading && !rows && <Loading />}
      {rows && <MoreThanShown shown={rows.length} total={list.data!.data.result} noun="webhooks" />}
      {rows?.length === 0 && (
        <EmptyState title="No webhooks yet" action={<button type="button" onClick={() => setEditing('new')}>Add a webhook</button>}>
          Add one to hear about new links and clicks as they happen.
        </EmptyState>
      )}
      {rows?.map((w) => (
        <section className="card" key={w.id} aria-labelledby={`webhook-${w.id}`}>
          <h2 className="short" id={`webhook-${w.id}`}>{w.url}</h2>
          <p>
            <Badge tone={w.enabled ? 'good' : 'warn'}>{w.enabled ? 'Enabled' : 'Disabled'}</Badge> {w.events.join(', ')}
          </p>
          {w.description && <p className="sub">{w.description}</p>}
          <p className="keybox">
            {/* the button's name says what it copies, never the secret itself */}
            <span className="sub">Signing secret</span> <CopyButton value={w.secret} label="Copy secret" what="Signing secret copied" of={`of ${w.url}`} />
          </p>
          {!w.enabled && w.disabledReason && <p className="note">{w.disabledReason}</p>}
          {w.clickEventsSkipped > 0 && (
            <p className="note">
              {counted(w.clickEventsSkipped, 'click events')} not sent: your receivers had too many deliveries waiting
              {w.clickEventsSkippedAt && <> (last on {formatDateTime(w.clickEventsSkippedAt)})</>}. Click events are queued again once they catch up.
            </p>
          )}
          <p className="sub">Created {formatDateTime(w.date)}</p>
          <div className="cell-actions">
            <button type="button" className="secondary small" onClick={() => setDeliveriesOf(w)} aria-label={`Deliveries of ${w.url}`}>Deliveries</button>
            <button type="button" className="secondary small" onClick={() => setEditing(w)} aria-label={`Edit webhook ${w.url}`}>Edit</button>
            <button type="button" className="secondary small" onClick={() => onToggle(w)} aria-label={`${w.enabled ? 'Disable' : 'Enable'} webhook ${w.url}`}>
              {w.enabled ? 'Disable' : 'Enable'}
            </button>
            <button type="button" className="secondary small" onClick={() => onDelete(w)} aria-label={`Delete webhook ${w.url}`}>Delete</button>
          </div>
        </section>
      ))}
      <Modal title={`Deliveries to ${deliveriesOf?.url ?? ''}`} open={!!deliveriesOf} onClose={() => setDeliveriesOf(undefined)} wide>
        {deliveriesOf && <Deliveries webhook={deliveriesOf} page={pageParam(params.get('page'))} onPage={(p, fix) => set({ page: p }, { replace: fix })} />}
      </Modal>
      <Modal title={editing === 'new' ? 'New webhook' : 'Edit webhook'} open={!!editing} onClose={() => setEditing(null)}>
        {editing && <WebhookForm webhook={editing === 'new' ? undefined : editing} onDone={() => (setEditing(null), list.reload())} onCancel={() => setEditing(null)} />}
      </Modal>
    </>
  )
}

/** Adds a webhook, or changes one's URL, events and description (PUT /api/webhook/:id/update). */
function WebhookForm({ webhook, onDone, onCancel }: { webhook?: Webhook; onDone: () => void; onCancel: () => void }) {
  const [url, setUrl] = useState(webhook?.url ?? 'https://')
  const [description, setDescription] = useState(webhook?.description ?? '')
  const [events, setEvents] = useState<string[]>(webhook?.events ?? ['link.created'])
  const save = useAction()
  const refused = useRefusal(save.error, LABELS)
  async function submit(e: FormEvent) {
    e.preventDefault()
    const body = { url: url.trim(), events, description: description.trim() || (webhook ? null : undefined) }
    if (await save.run(() => (webhook ? api.put(`/api/webhook/${webhook.id}/update`, body) : api.post('/api/webhook/add', body)))) {
      announce(webhook ? 'Webhook saved.' : 'Webhook added.')
      onDone()
    }
  }
  return (
    <form onSubmit={submit}>
      <Field label={LABELS.url}>{(id) => <input id={id} {...refused.field('url')} type="url" value={url} onChange={(e) => setUrl(e.target.value)} required />}</Field>
      <Field label={LABELS.description}>{(id) => <input id={id} {...refused.field('description')} value={description} onChange={(e) => setDescription(e.target.value)} />}</Field>
      <fieldset {...refused.group('events')}>
        <legend>{LABELS.events}</legend>
        {EVENTS.map((ev) => (
          <label className="check" key={ev}>
            <input type="checkbox" checked={events.includes(ev)} onChange={(e) => setEvents(e.target.checked ? [...events, ev] : events.filter((x) => x !== ev))} /> {ev}
          </label>
        ))}
      </fieldset>
      <ErrorNote {...refused.note} />
      <div className="actions">
        <button type="button" className="secondary" onClick={onCancel}>Cancel</button>
        <button type="submit" disabled={save.busy}>{webhook ? 'Save webhook' : 'Add webhook'}</button>
      </div>
    </form>
  )
}

const timeOnly = new Intl.DateTimeFormat(undefined, { timeStyle: 'short' })

/** A date over its time: two short lines keep the table narrow enough for the dialog. */
function When({ value }: { value: string }) {
  const at = parseApiDate(value)
  return (
    <span className="when">
      <span>{formatDate(value)}</span> <span>{at ? timeOnly.format(at) : ''}</span>
    </span>
  )
}

/** A page of deliveries: a busy receiver has thousands, and the dialog stays short enough to read. */
const DELIVERIES_PER_PAGE = 50

/**
 * The API takes a retry of any delivery while the webhook is enabled (POST …/retry): a failed or
 * pending one is attempted now, a delivered one is sent again. The button says which.
 */
function retryOf(d: Delivery): { label: string; done: string } {
  if (d.status === 'delivered') return { label: 'Send again', done: 'will be sent again now' }
  if (d.status === 'pending' && d.attempts === 0) return { label: 'Send now', done: 'will be sent now' }
  return { label: 'Retry', done: 'will be attempted again now' }
}

/**
 * What was sent to a webhook, 50 a page, newest first. The table keeps every column and scrolls
 * sideways in its own box on a narrow screen (the box takes focus, so the keyboard scrolls it too);
 * a long error opens in full.
 */
function Deliveries({ webhook, page, onPage }: { webhook: Webhook; page: number; onPage: (page: number, correction?: boolean) => void }) {
  const list = useLoad(() => api.get<ListOf<'deliveries', Delivery>>(`/api/webhook/${webhook.id}/deliveries${qs({ page, limit: DELIVERIES_PER_PAGE })}`), [webhook.id, page])
  const retry = useAction()
  const rows = list.data?.data.deliveries
  async function onRetry(d: Delivery) {
    if (await retry.run(() => api.post(`/api/webhook/${webhook.id}/deliveries/${d.id}/retry`))) {
      announce(`The ${d.event} delivery ${retryOf(d).done}.`)
      list.reload()
    }
  }
  return (
    <>
      <ErrorNote message={list.error ?? retry.error} onRetry={list.error ? list.reload : undefined} />
      {list.loading && !rows && <Loading />}
      {rows?.length === 0 && <EmptyState level={3} title="Nothing sent yet">Deliveries appear here once one of the chosen events happens.</EmptyState>}
      {/* the API refuses a retry while the webhook is disabled: say so rather than offer one */}
      {rows && rows.length > 0 && !webhook.enabled && <p className="note">This webhook is disabled, so nothing is sent: enable it to retry a delivery.</p>}
      {rows && rows.length > 0 && (
        <div className="table-wrap deliveries" role="region" aria-label="Deliveries table" tabIndex={0}>
          <table>
            <thead>
              <tr>
                <th scope="col">Event</th>
                <th scope="col">Status</th>
                <th scope="col" className="num">Attempts</th>
                <th scope="col">When</th>
                <th scope="col">Next attempt</th>
                <th scope="col" className="retry-col"><span className="offscreen">Actions</span></th>
              </tr>
            </thead>
            <tbody>
              {rows.map((d) => (
                <tr key={d.id}>
                  <td className="nowrap">{d.event}</td>
                  <td>
                    <Badge tone={d.status === 'delivered' ? 'good' : d.status === 'failed' ? 'warn' : 'plain'}>{d.status}</Badge>
                    {d.responseStatus ? <span className="sub"> HTTP {d.responseStatus}</span> : null}
                    {d.error ? (
                      <details className="more sub">
                        <summary>
                          <span className="truncate">{d.error}</span>
                        </summary>
                      </details>
                    ) : null}
                  </td>
                  <td className="num">{d.attempts}</td>
                  <td className="date"><When value={d.date} /></td>
                  <td className="date">{d.nextAttempt ? <When value={d.nextAttempt} /> : '—'}</td>
                  <td className="retry-col">
                    {webhook.enabled && (
                      <button type="button" className="secondary small" onClick={() => onRetry(d)} aria-label={`${retryOf(d).label} the ${d.event} delivery of ${formatDateTime(d.date)}`}>
                        {retryOf(d).label}
                      </button>
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {list.data && <Pager page={list.data.data.currentpage} maxPage={list.data.data.maxpage} total={list.data.data.result} noun="deliveries" onPage={onPage} />}
    </>
  )
}
