import { useState, type FormEvent } from 'react'
import { Link } from 'react-router'
import { api } from '../api/client'
import type { Channel, ListOf } from '../api/types'
import { announce } from '../ui/announce'
import { useConfirm } from '../ui/confirm'
import { useAction, useLoad } from '../ui/hooks'
import { EmptyState, ErrorNote, Field, Loading, Modal, MoreThanShown, PageHead } from '../ui/parts'
import { useRefusal } from '../ui/refusal'

/** The channel form's labels by body name: an API message names its field by the latter. */
const LABELS = {
  name: 'Channel name',
  description: 'Description',
  color: 'Colour',
}

export function ChannelsPage() {
  const list = useLoad(() => api.get<ListOf<'channels', Channel>>('/api/channels?limit=1000'), [])
  const [editing, setEditing] = useState<Channel | 'new' | null>(null)
  const remove = useAction()
  const confirm = useConfirm()
  const rows = list.data?.data.channels

  async function onDelete(c: Channel) {
    if (!(await confirm({ title: 'Delete this channel?', message: <p>Its items are unassigned from <strong>{c.name}</strong>; the links and QR codes stay.</p>, confirm: 'Delete channel' }))) return
    if (await remove.run(() => api.del(`/api/channel/${c.id}/delete`))) {
      announce(`Channel ${c.name} deleted.`)
      list.reload()
    }
  }

  return (
    <>
      <PageHead title="Channels">
        <button type="button" onClick={() => setEditing('new')}>New channel</button>
      </PageHead>
      <ErrorNote message={list.error ?? remove.error} onRetry={list.error ? list.reload : undefined} />
      {list.loading && !rows && <Loading />}
      {rows && <MoreThanShown shown={rows.length} total={list.data!.data.result} noun="channels" />}
      {rows?.length === 0 && (
        <EmptyState title="No channels yet" action={<button type="button" onClick={() => setEditing('new')}>Create a channel</button>}>
          Channels are coloured folders for your links and QR codes.
        </EmptyState>
      )}
      {rows && rows.length > 0 && (
        <div className="grid three">
          {rows.map((c) => (
            <section className="card" key={c.id} aria-labelledby={`channel-${c.id}`}>
              <h2 id={`channel-${c.id}`}>
                <span className="swatch" style={{ background: c.color || 'transparent' }} aria-hidden="true" />
                <Link to={`/channels/${c.id}`}>{c.name}</Link> {c.starred && <span aria-label="starred">★</span>}
              </h2>
              <p className="sub">{c.description || 'No description.'}</p>
              <div className="cell-actions">
                <button type="button" className="secondary small" onClick={() => setEditing(c)} aria-label={`Edit ${c.name}`}>Edit</button>
                <button type="button" className="secondary small" onClick={() => onDelete(c)} aria-label={`Delete ${c.name}`}>Delete</button>
              </div>
            </section>
          ))}
        </div>
      )}
      <Modal title={editing === 'new' ? 'New channel' : 'Edit channel'} open={!!editing} onClose={() => setEditing(null)}>
        {editing && <ChannelForm channel={editing === 'new' ? undefined : editing} onDone={() => (setEditing(null), list.reload())} onCancel={() => setEditing(null)} />}
      </Modal>
    </>
  )
}

function ChannelForm({ channel, onDone, onCancel }: { channel?: Channel; onDone: () => void; onCancel: () => void }) {
  const [name, setName] = useState(channel?.name ?? '')
  const [description, setDescription] = useState(channel?.description ?? '')
  const [color, setColor] = useState(channel?.color || '#3b5bdb')
  const [starred, setStarred] = useState(channel?.starred ?? false)
  const save = useAction()
  const refused = useRefusal(save.error, LABELS)
  async function submit(e: FormEvent) {
    e.preventDefault()
    const body = { name: name.trim(), description: description.trim() || (channel ? null : undefined), color, starred }
    if (await save.run(() => (channel ? api.put(`/api/channel/${channel.id}/update`, body) : api.post('/api/channel/add', body)))) {
      announce(channel ? 'Channel saved.' : 'Channel created.')
      onDone()
    }
  }
  return (
    <form onSubmit={submit}>
      <Field label={LABELS.name}>{(id) => <input id={id} {...refused.field('name')} value={name} onChange={(e) => setName(e.target.value)} required />}</Field>
      <Field label={LABELS.description}>{(id) => <textarea id={id} {...refused.field('description')} rows={2} value={description} onChange={(e) => setDescription(e.target.value)} />}</Field>
      <Field label={LABELS.color}>{(id) => <input id={id} {...refused.field('color')} type="color" value={color} onChange={(e) => setColor(e.target.value)} />}</Field>
      <label className="check">
        <input type="checkbox" checked={starred} onChange={(e) => setStarred(e.target.checked)} /> Starred
      </label>
      <ErrorNote {...refused.note} />
      <div className="actions">
        <button type="button" className="secondary" onClick={onCancel}>Cancel</button>
        <button type="submit" disabled={save.busy}>{channel ? 'Save channel' : 'Create channel'}</button>
      </div>
    </form>
  )
}
