import { useState } from 'react'
import { api } from '../api/client'
import { PlanNote, usePlan } from '../plan'
import { announce } from '../ui/announce'
import type { ListOf, OverlayItem, SplashItem } from '../api/types'
import { useConfirm } from '../ui/confirm'
import { formatDate } from '../ui/format'
import { useAction, useLoad } from '../ui/hooks'
import { EmptyState, ErrorNote, Loading, Modal, MoreThanShown, PageHead } from '../ui/parts'
import { OverlayEditor, overlayKindName, SplashEditor } from './editors'
import { Responses } from './Responses'

type Editing = { kind: 'splash' | 'overlay'; id?: number } | null

/** Custom splash pages and CTA overlays: lists, editors with a preview, and overlay responses. */
export function PagesPage() {
  const splash = useLoad(() => api.get<ListOf<'splash', SplashItem>>('/api/splash?limit=1000'), [])
  const overlays = useLoad(() => api.get<ListOf<'cta', OverlayItem>>('/api/overlay?limit=1000'), [])
  const [editing, setEditing] = useState<Editing>(null)
  const [responsesOf, setResponsesOf] = useState<OverlayItem>()
  const remove = useAction()
  const confirm = useConfirm()
  // creating a splash page or an overlay needs its feature and room under its count; editing and deleting one do not
  const { blocked } = usePlan()
  const have = { splash: splash.data?.data.result, overlay: overlays.data?.data.result }
  const canSplash = !blocked('splash', have.splash)
  const canOverlay = !blocked('overlay', have.overlay)

  async function onDelete(kind: 'splash' | 'overlay', item: { id: number; name: string }) {
    const what = kind === 'splash' ? 'splash page' : 'overlay'
    if (!(await confirm({ title: `Delete this ${what}?`, message: <p>Links using <strong>{item.name}</strong> become direct redirects.</p>, confirm: `Delete ${what}` }))) return
    if (await remove.run(() => api.del(`/api/${kind}/${item.id}/delete`))) {
      ;(kind === 'splash' ? splash : overlays).reload()
      announce(`${what[0].toUpperCase()}${what.slice(1)} ${item.name} deleted.`)
    }
  }
  const done = () => {
    setEditing(null)
    splash.reload()
    overlays.reload()
  }

  return (
    <>
      <PageHead title="Pages">
        {canOverlay && <button type="button" className="secondary" onClick={() => setEditing({ kind: 'overlay' })}>New overlay</button>}
        {canSplash && <button type="button" onClick={() => setEditing({ kind: 'splash' })}>New splash page</button>}
      </PageHead>
      <ErrorNote message={remove.error} />
      <section className="card" aria-labelledby="splash-head">
        <h2 id="splash-head">Splash pages</h2>
        <p className="sub">Shown before the visitor goes on, with your title, message, image and a countdown.</p>
        <PlanNote feature="splash" have={have.splash} />
        <ErrorNote message={splash.error} onRetry={splash.reload} />
        {splash.loading && !splash.data && <Loading />}
        {splash.data && <MoreThanShown shown={splash.data.data.splash.length} total={splash.data.data.result} noun="splash pages" />}
        {splash.data?.data.splash.length === 0 && <EmptyState level={3} title="No splash pages yet" action={canSplash && <button type="button" onClick={() => setEditing({ kind: 'splash' })}>Create a splash page</button>} />}
        <ItemTable
          items={splash.data?.data.splash ?? []}
          onEdit={(it) => setEditing({ kind: 'splash', id: it.id })}
          onDelete={(it) => onDelete('splash', it)}
        />
      </section>
      <section className="card" aria-labelledby="overlay-head">
        <h2 id="overlay-head">CTA overlays</h2>
        <p className="sub">A message, contact form or poll shown over the destination page.</p>
        <PlanNote feature="overlay" have={have.overlay} />
        <ErrorNote message={overlays.error} onRetry={overlays.reload} />
        {overlays.loading && !overlays.data && <Loading />}
        {overlays.data && <MoreThanShown shown={overlays.data.data.cta.length} total={overlays.data.data.result} noun="overlays" />}
        {overlays.data?.data.cta.length === 0 && <EmptyState level={3} title="No overlays yet" action={canOverlay && <button type="button" onClick={() => setEditing({ kind: 'overlay' })}>Create an overlay</button>} />}
        <ItemTable
          items={overlays.data?.data.cta ?? []}
          onEdit={(it) => setEditing({ kind: 'overlay', id: it.id })}
          onDelete={(it) => onDelete('overlay', it)}
          onResponses={(it) => setResponsesOf(it as OverlayItem)}
        />
      </section>
      <Modal title={editing?.kind === 'splash' ? (editing.id ? 'Edit splash page' : 'New splash page') : editing?.id ? 'Edit overlay' : 'New overlay'} open={!!editing} onClose={() => setEditing(null)} wide>
        {editing?.kind === 'splash' && <SplashEditor id={editing.id} onDone={done} onCancel={() => setEditing(null)} />}
        {editing?.kind === 'overlay' && <OverlayEditor id={editing.id} onDone={done} onCancel={() => setEditing(null)} />}
      </Modal>
      <Modal title={`Responses to ${responsesOf?.name ?? ''}`} open={!!responsesOf} onClose={() => setResponsesOf(undefined)} wide>
        {responsesOf && <Responses overlay={responsesOf} />}
      </Modal>
    </>
  )
}

function ItemTable<T extends { id: number; name: string; date: string; type?: string }>(props: { items: T[]; onEdit: (t: T) => void; onDelete: (t: T) => void; onResponses?: (t: T) => void }) {
  if (props.items.length === 0) return null
  return (
    <div className="table-wrap">
      <table>
        <thead>
          <tr>
            <th scope="col">Name</th>
            {props.onResponses && <th scope="col">Kind</th>}
            <th scope="col" className="hide-small">Created</th>
            <th scope="col"><span className="offscreen">Actions</span></th>
          </tr>
        </thead>
        <tbody>
          {props.items.map((it) => (
            <tr key={it.id}>
              <td>{it.name}</td>
              {props.onResponses && <td>{overlayKindName(it.type ?? '')}</td>}
              <td className="hide-small">{formatDate(it.date)}</td>
              <td>
                <div className="cell-actions">
                  {props.onResponses && it.type !== 'message' && (
                    <button type="button" className="secondary small" onClick={() => props.onResponses!(it)} aria-label={`Responses to ${it.name}`}>Responses</button>
                  )}
                  <button type="button" className="secondary small" onClick={() => props.onEdit(it)} aria-label={`Edit ${it.name}`}>Edit</button>
                  <button type="button" className="secondary small" onClick={() => props.onDelete(it)} aria-label={`Delete ${it.name}`}>Delete</button>
                </div>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  )
}
