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
  date: string
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
          <p className="sub">Created {formatDateTime(w.date)}</p>
          <button type="button" className="secondary small" onClick={() => onDelete(w)} aria-label={`Delete webhook ${w.url}`}>Delete</button>
        </section>
      ))}
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
