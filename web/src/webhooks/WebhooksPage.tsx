import { useState, type FormEvent } from 'react'
import { api } from '../api/client'
import type { ListOf } from '../api/types'
import { announce } from '../ui/announce'
import { useConfirm } from '../ui/confirm'
import { formatDateTime } from '../ui/format'
import { useAction, useLoad } from '../ui/hooks'
import { Badge, CopyButton, EmptyState, ErrorNote, Field, Loading, Modal, PageHead } from '../ui/parts'
import { useApiPaths } from '../ui/routes-available'
import { NotYet } from './NotYet'

interface Webhook {
  id: number
  url: string
  events: string[]
  description: string
  secret: string
  enabled: boolean
  disabledReason?: string | null
  date: string
}
interface Delivery {
  id: number
  event: string
  status: 'pending' | 'delivered' | 'failed'
  attempts: number
  responseStatus: number | null
  error?: string | null
  date: string
  nextAttempt: string | null
}
const EVENTS = ['link.created', 'link.updated', 'link.deleted', 'link.clicked', 'qr.created', 'qr.scanned', 'link.health']

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
  const [adding, setAdding] = useState(false)
  const [deliveriesOf, setDeliveriesOf] = useState<Webhook>()
  const remove = useAction()
  const confirm = useConfirm()
  const rows = list.data?.data.webhooks
  async function onDelete(w: Webhook) {
    if (!(await confirm({ title: 'Delete this webhook?', message: <p>Kurz stops calling <strong>{w.url}</strong>.</p>, confirm: 'Delete webhook' }))) return
    if (await remove.run(() => api.del(`/api/webhook/${w.id}/delete`))) list.reload()
  }
  return (
    <>
      <div className="toolbar">
        <button type="button" onClick={() => setAdding(true)}>New webhook</button>
      </div>
      <ErrorNote message={list.error ?? remove.error} onRetry={list.error ? list.reload : undefined} />
      {list.loading && !rows && <Loading />}
      {rows?.length === 0 && <EmptyState title="No webhooks yet">Add one to hear about new links and clicks as they happen.</EmptyState>}
      {rows?.map((w) => (
        <section className="card" key={w.id}>
          <h2 className="short">{w.url}</h2>
          <p>
            <Badge tone={w.enabled ? 'good' : 'warn'}>{w.enabled ? 'Enabled' : 'Disabled'}</Badge> {w.events.join(', ')}
          </p>
          {w.description && <p className="sub">{w.description}</p>}
          <p className="keybox">
            <span className="sub">Signing secret</span> <CopyButton value={w.secret} label="Copy secret" />
          </p>
          {!w.enabled && w.disabledReason && <p className="note">{w.disabledReason}</p>}
          <p className="sub">Created {formatDateTime(w.date)}</p>
          <div className="cell-actions">
            <button type="button" className="secondary small" onClick={() => setDeliveriesOf(w)} aria-label={`Deliveries of ${w.url}`}>Deliveries</button>
            <button
              type="button"
              className="secondary small"
              onClick={() => remove.run(() => api.put(`/api/webhook/${w.id}/update`, { enabled: !w.enabled })).then((ok) => ok && list.reload())}
              aria-label={`${w.enabled ? 'Disable' : 'Enable'} webhook ${w.url}`}
            >
              {w.enabled ? 'Disable' : 'Enable'}
            </button>
            <button type="button" className="secondary small" onClick={() => onDelete(w)} aria-label={`Delete webhook ${w.url}`}>Delete</button>
          </div>
        </section>
      ))}
      <Modal title={`Deliveries to ${deliveriesOf?.url ?? ''}`} open={!!deliveriesOf} onClose={() => setDeliveriesOf(undefined)} wide>
        {deliveriesOf && <Deliveries webhook={deliveriesOf} />}
      </Modal>
      <Modal title="New webhook" open={adding} onClose={() => setAdding(false)}>
        {adding && <WebhookForm onDone={() => (setAdding(false), list.reload())} />}
      </Modal>
    </>
  )
}

function WebhookForm({ onDone }: { onDone: () => void }) {
  const [url, setUrl] = useState('https://')
  const [description, setDescription] = useState('')
  const [events, setEvents] = useState<string[]>(['link.created'])
  const save = useAction()
  async function submit(e: FormEvent) {
    e.preventDefault()
    if (await save.run(() => api.post('/api/webhook/add', { url: url.trim(), events, description: description.trim() || undefined }))) {
      announce('Webhook added.')
      onDone()
    }
  }
  return (
    <form onSubmit={submit}>
      <Field label="Endpoint URL">{(id) => <input id={id} type="url" value={url} onChange={(e) => setUrl(e.target.value)} required />}</Field>
      <Field label="Description">{(id) => <input id={id} value={description} onChange={(e) => setDescription(e.target.value)} />}</Field>
      <fieldset>
        <legend>Events</legend>
        {EVENTS.map((ev) => (
          <label className="check" key={ev}>
            <input type="checkbox" checked={events.includes(ev)} onChange={(e) => setEvents(e.target.checked ? [...events, ev] : events.filter((x) => x !== ev))} /> {ev}
          </label>
        ))}
      </fieldset>
      <ErrorNote message={save.error} />
      <div className="actions">
        <button type="submit" disabled={save.busy}>Add webhook</button>
      </div>
    </form>
  )
}

function Deliveries({ webhook }: { webhook: Webhook }) {
  const list = useLoad(() => api.get<ListOf<'deliveries', Delivery>>(`/api/webhook/${webhook.id}/deliveries?limit=100`), [webhook.id])
  const retry = useAction()
  const rows = list.data?.data.deliveries
  return (
    <>
      <ErrorNote message={list.error ?? retry.error} onRetry={list.error ? list.reload : undefined} />
      {list.loading && !rows && <Loading />}
      {rows?.length === 0 && <EmptyState title="Nothing sent yet">Deliveries appear here once one of the chosen events happens.</EmptyState>}
      {rows && rows.length > 0 && (
        <div className="table-wrap">
          <table>
            <thead>
              <tr>
                <th scope="col">Event</th>
                <th scope="col">Status</th>
                <th scope="col" className="hide-small">Attempts</th>
                <th scope="col" className="hide-small">When</th>
                <th scope="col"><span className="offscreen">Actions</span></th>
              </tr>
            </thead>
            <tbody>
              {rows.map((d) => (
                <tr key={d.id}>
                  <td>{d.event}</td>
                  <td>
                    <Badge tone={d.status === 'delivered' ? 'good' : d.status === 'failed' ? 'warn' : 'plain'}>{d.status}</Badge>
                    {d.responseStatus ? <span className="sub"> HTTP {d.responseStatus}</span> : null}
                    {d.error ? <span className="sub truncate">{d.error}</span> : null}
                  </td>
                  <td className="hide-small">{d.attempts}</td>
                  <td className="hide-small">{formatDateTime(d.date)}</td>
                  <td>
                    {d.status === 'failed' && (
                      <button type="button" className="secondary small" onClick={() => retry.run(() => api.post(`/api/webhook/${webhook.id}/deliveries/${d.id}/retry`)).then((ok) => ok && list.reload())}>
                        Retry
                      </button>
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </>
  )
}
