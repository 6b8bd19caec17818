import { useState, type FormEvent } from 'react'
import { Link } from 'react-router'
import { api } from '../api/client'
import type { Campaign, ListOf } from '../api/types'
import { PlanNote, usePlan } from '../plan'
import { announce } from '../ui/announce'
import { useConfirm } from '../ui/confirm'
import { useAction, useLoad } from '../ui/hooks'
import { LinkPicker } from '../ui/LinkPicker'
import { Badge, CopyButton, EmptyState, ErrorNote, Field, Loading, Modal, MoreThanShown, PageHead } from '../ui/parts'
import { useRefusal } from '../ui/refusal'

/** The campaign form's labels by body name: an API message names its field by the latter. */
const LABELS = {
  name: 'Campaign name',
  slug: 'Rotator slug',
}

export function CampaignsPage() {
  const list = useLoad(() => api.get<ListOf<'campaigns', Campaign>>('/api/campaigns?limit=1000'), [])
  const [editing, setEditing] = useState<Campaign | 'new' | null>(null)
  const [assigning, setAssigning] = useState<Campaign>()
  const remove = useAction()
  const assign = useAction()
  const confirm = useConfirm()
  const rows = list.data?.data.campaigns
  // creating a campaign and assigning links to one need `bundle`; editing and deleting one do not
  const canBundle = !usePlan().locked('bundle')

  async function onDelete(c: Campaign) {
    if (!(await confirm({ title: 'Delete this campaign?', message: <p>The links of <strong>{c.name}</strong> stay; they are no longer grouped.</p>, confirm: 'Delete campaign' }))) return
    if (await remove.run(() => api.del(`/api/campaign/${c.id}/delete`))) {
      announce(`Campaign ${c.name} deleted.`)
      list.reload()
    }
  }

  return (
    <>
      <PageHead title="Campaigns">
        {canBundle && <button type="button" onClick={() => setEditing('new')}>New campaign</button>}
      </PageHead>
      <PlanNote feature="bundle" />
      <ErrorNote message={list.error ?? remove.error} onRetry={list.error ? list.reload : undefined} />
      {list.loading && !rows && <Loading />}
      {rows && <MoreThanShown shown={rows.length} total={list.data!.data.result} noun="campaigns" />}
      {rows?.length === 0 && (
        <EmptyState title="No campaigns yet" action={canBundle && <button type="button" onClick={() => setEditing('new')}>Create a campaign</button>}>
          Group links into a campaign, share its public list or a rotator that sends each visitor to the next link.
        </EmptyState>
      )}
      {rows && rows.length > 0 && (
        <div className="grid two">
          {rows.map((c) => (
            <section className="card" key={c.id} aria-labelledby={`campaign-${c.id}`}>
              <div className="page-head">
                <h2 id={`campaign-${c.id}`}>{c.name}</h2>
                <Badge tone={c.public ? 'good' : 'plain'}>{c.public ? 'Public' : 'Private'}</Badge>
              </div>
              {c.rotator && (
                <p className="keybox">
                  <span className="sub">Rotator</span> <code>{c.rotator}</code> <CopyButton value={c.rotator} />
                </p>
              )}
              <ListPage campaign={c} />
              <div className="cell-actions">
                <Link className="button secondary small" to={`/links?campaign=${c.id}`} aria-label={`View links of ${c.name}`}>View links</Link>
                {canBundle && (
                  <button type="button" className="small" onClick={() => (assign.setError(undefined), setAssigning(c))} aria-label={`Assign links to ${c.name}`}>Assign links</button>
                )}
                <button type="button" className="secondary small" onClick={() => setEditing(c)} aria-label={`Edit ${c.name}`}>Edit</button>
                <button type="button" className="secondary small" onClick={() => onDelete(c)} aria-label={`Delete ${c.name}`}>Delete</button>
              </div>
            </section>
          ))}
        </div>
      )}
      <Modal title={editing === 'new' ? 'New campaign' : 'Edit campaign'} open={!!editing} onClose={() => setEditing(null)}>
        {editing && <CampaignForm campaign={editing === 'new' ? undefined : editing} onDone={() => (setEditing(null), list.reload())} onCancel={() => setEditing(null)} />}
      </Modal>
      <Modal title={`Assign links to ${assigning?.name ?? ''}`} open={!!assigning} onClose={() => setAssigning(undefined)} wide>
        <ErrorNote message={assign.error} />
        {assigning && (
          <LinkPicker
            action="Assign" done="Assigned"
            member={{ campaign: assigning.id }}
            onPick={(id, short) =>
              assign.run(async () => {
                await api.post(`/api/campaign/${assigning.id}/assign/${id}`)
                announce(`${short} assigned to ${assigning.name}.`)
              })
            }
          />
        )}
      </Modal>
    </>
  )
}

/**
 * The campaign's public list page (/u/<username>/<id>). A private campaign's answers 404 to
 * everyone, so it is not offered for copying: the card says who sees the links and how to share them.
 */
function ListPage({ campaign: c }: { campaign: Campaign }) {
  if (c.public) {
    return (
      <p className="keybox">
        <span className="sub">List</span> <code>{c.list}</code> <CopyButton value={c.list} />
      </p>
    )
  }
  return <p className="sub">Private: only you see its links (View links). To share them on a public list page, edit the campaign and tick Public list page.</p>
}

function CampaignForm({ campaign, onDone, onCancel }: { campaign?: Campaign; onDone: () => void; onCancel: () => void }) {
  const [name, setName] = useState(campaign?.name ?? '')
  const [slug, setSlug] = useState(campaign?.rotator ? campaign.rotator.split('/').pop() ?? '' : '')
  const [isPublic, setPublic] = useState(campaign?.public ?? false)
  const save = useAction()
  const refused = useRefusal(save.error, LABELS)
  async function submit(e: FormEvent) {
    e.preventDefault()
    const body = { name: name.trim(), slug: slug.trim() || undefined, public: isPublic }
    if (await save.run(() => (campaign ? api.put(`/api/campaign/${campaign.id}/update`, body) : api.post('/api/campaign/add', body)))) {
      announce(campaign ? 'Campaign saved.' : 'Campaign created.')
      onDone()
    }
  }
  return (
    <form onSubmit={submit}>
      <Field label={LABELS.name}>{(id) => <input id={id} {...refused.field('name')} value={name} onChange={(e) => setName(e.target.value)} required />}</Field>
      <Field label={LABELS.slug} hint="Optional: a short address that sends each visitor to the campaign's next link.">
        {(id, hint) => <input id={id} {...refused.field('slug', hint)} value={slug} onChange={(e) => setSlug(e.target.value)} />}
      </Field>
      <label className="check">
        <input type="checkbox" checked={isPublic} onChange={(e) => setPublic(e.target.checked)} /> Public list page
      </label>
      <ErrorNote {...refused.note} />
      <div className="actions">
        <button type="button" className="secondary" onClick={onCancel}>Cancel</button>
        <button type="submit" disabled={save.busy}>{campaign ? 'Save campaign' : 'Create campaign'}</button>
      </div>
    </form>
  )
}
