import { useState, type FormEvent } from 'react'
import { api } from '../api/client'
import type { Overlay, Splash } from '../api/types'
import { announce } from '../ui/announce'
import { useAction, useLoad } from '../ui/hooks'
import { ErrorNote, Field, Loading } from '../ui/parts'
import { useRefusal } from '../ui/refusal'

/** The overlay form's labels by body name. */
const OVERLAY_LABELS = {
  name: 'Overlay name',
  type: 'Kind',
  position: 'Position',
  title: 'Title',
  message: 'Message',
  options: 'Poll answers',
  button: 'Button label',
  buttonurl: 'Button URL',
  background: 'Background',
  color: 'Text colour',
  buttonbackground: 'Button colour',
  buttoncolor: 'Button text',
}

/** The splash page form's labels by body name: an API message names its field by the latter. */
const SPLASH_LABELS = {
  name: 'Splash page name',
  title: 'Title',
  message: 'Message',
  image: 'Image URL',
  button: 'Button label',
  countdown: 'Countdown (seconds)',
}

const POSITIONS = ['bottom-left', 'bottom-right', 'top', 'bottom', 'center'] as const

/** An overlay's kinds by API value, named as the editor's Kind field names them (the overlay list too). */
export const OVERLAY_KINDS = [
  ['message', 'Message'],
  ['contact', 'Contact form'],
  ['poll', 'Poll'],
] as const

/** The editor's name of an overlay kind; a value this dashboard does not know is shown as it is. */
export const overlayKindName = (type: string) => OVERLAY_KINDS.find(([value]) => value === type)?.[1] ?? type

export function SplashEditor({ id, onDone, onCancel }: { id?: number; onDone: () => void; onCancel: () => void }) {
  const loaded = useLoad(async () => (id ? (await api.get<{ data: Splash }>(`/api/splash/${id}`)).data : undefined), [id])
  if (id && !loaded.data) return loaded.error ? <ErrorNote message={loaded.error} onRetry={loaded.reload} /> : <Loading />
  return <SplashForm initial={loaded.data} onDone={onDone} onCancel={onCancel} />
}

function SplashForm({ initial, onDone, onCancel }: { initial?: Splash; onDone: () => void; onCancel: () => void }) {
  const [v, setV] = useState({ name: initial?.name ?? '', title: initial?.title ?? '', message: initial?.message ?? '', image: initial?.image ?? '', button: initial?.button ?? '', countdown: initial?.countdown ?? 5 })
  const save = useAction()
  const refused = useRefusal(save.error, SPLASH_LABELS)
  const set = (patch: Partial<typeof v>) => setV({ ...v, ...patch })
  async function submit(e: FormEvent) {
    e.preventDefault()
    const blank = (s: string) => s.trim() || (initial ? null : undefined)
    const body = { name: v.name.trim(), title: blank(v.title), message: blank(v.message), image: blank(v.image), button: blank(v.button), countdown: v.countdown }
    if (await save.run(() => (initial ? api.put(`/api/splash/${initial.id}/update`, body) : api.post('/api/splash/add', body)))) {
      announce('Splash page saved.')
      onDone()
    }
  }
  return (
    <form onSubmit={submit} className="grid two">
      <div>
        <Field label="Splash page name">{(id) => <input id={id} {...refused.field('name')} value={v.name} onChange={(e) => set({ name: e.target.value })} required />}</Field>
        <Field label="Title">{(id) => <input id={id} {...refused.field('title')} value={v.title} onChange={(e) => set({ title: e.target.value })} />}</Field>
        <Field label="Message">{(id) => <textarea id={id} {...refused.field('message')} rows={3} value={v.message} onChange={(e) => set({ message: e.target.value })} />}</Field>
        <Field label="Image URL" hint="https, .jpg or .png">{(id, hint) => <input id={id} {...refused.field('image', hint)} type="url" value={v.image} onChange={(e) => set({ image: e.target.value })} />}</Field>
        <div className="row">
          <Field label="Button label">{(id) => <input id={id} {...refused.field('button')} value={v.button} onChange={(e) => set({ button: e.target.value })} />}</Field>
          <Field label="Countdown (seconds)">{(id) => <input id={id} {...refused.field('countdown')} type="number" min={0} max={60} value={v.countdown} onChange={(e) => set({ countdown: Number(e.target.value) })} />}</Field>
        </div>
      </div>
      <div>
        <p className="label">Preview</p>
        <div className="page-preview" aria-label="Splash page preview" role="group">
          <div className="splash-preview">
            {/^https:\/\//.test(v.image) && <img src={v.image} alt="" referrerPolicy="no-referrer" />}
            <h3>{v.title || 'Your title'}</h3>
            <p>{v.message || 'Your message to visitors.'}</p>
            <p className="sub">Redirecting in {v.countdown} s…</p>
            <span className="button small">{v.button || 'Continue'}</span>
          </div>
        </div>
        <ErrorNote {...refused.note} />
        <div className="actions">
          <button type="button" className="secondary" onClick={onCancel}>Cancel</button>
          <button type="submit" disabled={save.busy}>Save splash page</button>
        </div>
      </div>
    </form>
  )
}

export function OverlayEditor({ id, onDone, onCancel }: { id?: number; onDone: () => void; onCancel: () => void }) {
  const loaded = useLoad(async () => (id ? (await api.get<{ data: Overlay }>(`/api/overlay/${id}`)).data : undefined), [id])
  if (id && !loaded.data) return loaded.error ? <ErrorNote message={loaded.error} onRetry={loaded.reload} /> : <Loading />
  return <OverlayForm initial={loaded.data} onDone={onDone} onCancel={onCancel} />
}

function OverlayForm({ initial, onDone, onCancel }: { initial?: Overlay; onDone: () => void; onCancel: () => void }) {
  const [v, setV] = useState({
    name: initial?.name ?? '',
    type: (initial?.type ?? 'message') as string,
    title: initial?.title ?? '',
    message: initial?.message ?? '',
    button: initial?.button ?? '',
    buttonurl: initial?.buttonurl ?? '',
    position: (initial?.position ?? 'bottom-left') as string,
    background: initial?.background || '#ffffff',
    color: initial?.color || '#1b2030',
    buttonbackground: initial?.buttonbackground || '#3b5bdb',
    buttoncolor: initial?.buttoncolor || '#ffffff',
    options: (initial?.options ?? []).join('\n'),
  })
  const save = useAction()
  const refused = useRefusal(save.error, OVERLAY_LABELS)
  const set = (patch: Partial<typeof v>) => setV({ ...v, ...patch })
  const options = v.options.split('\n').map((o) => o.trim()).filter(Boolean)
  async function submit(e: FormEvent) {
    e.preventDefault()
    const blank = (s: string) => s.trim() || (initial ? null : undefined)
    const body = {
      name: v.name.trim(),
      type: v.type,
      title: blank(v.title),
      message: blank(v.message),
      button: blank(v.button),
      buttonurl: blank(v.buttonurl),
      position: v.position,
      background: v.background,
      color: v.color,
      buttonbackground: v.buttonbackground,
      buttoncolor: v.buttoncolor,
      ...(v.type === 'poll' ? { options } : {}),
    }
    if (await save.run(() => (initial ? api.put(`/api/overlay/${initial.id}/update`, body) : api.post('/api/overlay/add', body)))) {
      announce('Overlay saved.')
      onDone()
    }
  }
  return (
    <form onSubmit={submit} className="grid two">
      <div>
        <Field label="Overlay name">{(id) => <input id={id} {...refused.field('name')} value={v.name} onChange={(e) => set({ name: e.target.value })} required />}</Field>
        <div className="row">
          <Field label="Kind">
            {(id) => (
              <select id={id} {...refused.field('type')} value={v.type} onChange={(e) => set({ type: e.target.value })}>
                {OVERLAY_KINDS.map(([value, name]) => (
                  <option key={value} value={value}>{name}</option>
                ))}
              </select>
            )}
          </Field>
          <Field label="Position">
            {(id) => (
              <select id={id} {...refused.field('position')} value={v.position} onChange={(e) => set({ position: e.target.value })}>
                {POSITIONS.map((p) => (
                  <option key={p} value={p}>{p.replace('-', ' ')}</option>
                ))}
              </select>
            )}
          </Field>
        </div>
        <Field label="Title">{(id) => <input id={id} {...refused.field('title')} value={v.title} onChange={(e) => set({ title: e.target.value })} />}</Field>
        <Field label="Message">{(id) => <textarea id={id} {...refused.field('message')} rows={2} value={v.message} onChange={(e) => set({ message: e.target.value })} />}</Field>
        {v.type === 'poll' && (
          <Field label="Poll answers" hint="One per line, 2 to 10.">{(id, hint) => <textarea id={id} {...refused.field('options', hint)} rows={4} value={v.options} onChange={(e) => set({ options: e.target.value })} />}</Field>
        )}
        <div className="row">
          <Field label="Button label">{(id) => <input id={id} {...refused.field('button')} value={v.button} onChange={(e) => set({ button: e.target.value })} />}</Field>
          <Field label="Button URL">{(id) => <input id={id} {...refused.field('buttonurl')} type="url" value={v.buttonurl} onChange={(e) => set({ buttonurl: e.target.value })} />}</Field>
        </div>
        <div className="row">
          <Field label="Background">{(id) => <input id={id} {...refused.field('background')} type="color" value={v.background} onChange={(e) => set({ background: e.target.value })} />}</Field>
          <Field label="Text colour">{(id) => <input id={id} {...refused.field('color')} type="color" value={v.color} onChange={(e) => set({ color: e.target.value })} />}</Field>
          <Field label="Button colour">{(id) => <input id={id} {...refused.field('buttonbackground')} type="color" value={v.buttonbackground} onChange={(e) => set({ buttonbackground: e.target.value })} />}</Field>
          <Field label="Button text">{(id) => <input id={id} {...refused.field('buttoncolor')} type="color" value={v.buttoncolor} onChange={(e) => set({ buttoncolor: e.target.value })} />}</Field>
        </div>
      </div>
      <div>
        <p className="label">Preview</p>
        <div className="page-preview" aria-label="Overlay preview" role="group">
          <p className="sub">The destination page shows here.</p>
          <div className={`overlay-preview ${v.position}`} style={{ background: v.background, color: v.color }}>
            <strong>{v.title || 'Your title'}</strong>
            <div>{v.message || 'Your message.'}</div>
            {v.type === 'contact' && <div className="sub">Name · Email · Message</div>}
            {v.type === 'poll' && (
              <ul>
                {(options.length ? options : ['Answer one', 'Answer two']).map((o) => (
                  <li key={o}>{o}</li>
                ))}
              </ul>
            )}
            <span className="ov-button" style={{ background: v.buttonbackground, color: v.buttoncolor }}>
              {v.button || (v.type === 'message' ? 'Learn more' : 'Send')}
            </span>
          </div>
        </div>
        <ErrorNote {...refused.note} />
        <div className="actions">
          <button type="button" className="secondary" onClick={onCancel}>Cancel</button>
          <button type="submit" disabled={save.busy}>Save overlay</button>
        </div>
      </div>
    </form>
  )
}
