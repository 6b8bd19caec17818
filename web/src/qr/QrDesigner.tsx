import { useEffect, useId, useRef, useState, type FormEvent } from 'react'
import QRCode from 'qrcode'
import { ErrorNote, Field } from '../ui/parts'
import { useRefusal } from '../ui/refusal'
import { contrastRatio, lowContrast, MIN_CONTRAST, parseColour } from '../../../src/lib/colour.js'

export const QR_TYPES = [
  ['link', 'Link'],
  ['text', 'Text'],
  ['email', 'Email'],
  ['phone', 'Phone'],
  ['sms', 'SMS'],
  ['wifi', 'Wi-Fi'],
  ['vcard', 'Contact card (vCard)'],
] as const
export type QrType = (typeof QR_TYPES)[number][0]

type Values = Record<string, string>

/** The `data` the API takes for each type (SPEC.md "QR codes", DECISIONS §7). */
function dataOf(type: QrType, v: Values): unknown {
  const clean = (o: Record<string, string | boolean | undefined>) => Object.fromEntries(Object.entries(o).filter(([, x]) => x !== '' && x !== undefined))
  switch (type) {
    case 'link':
      return v.url ?? ''
    case 'text':
      return v.text ?? ''
    case 'phone':
      return v.phone ?? ''
    case 'email':
      return clean({ email: v.email, subject: v.subject, body: v.body })
    case 'sms':
      return clean({ phone: v.phone, message: v.message })
    case 'wifi':
      return clean({ ssid: v.ssid, password: v.encryption === 'nopass' ? undefined : v.password, encryption: v.encryption || 'WPA', hidden: v.hidden === '1' })
    case 'vcard':
      return clean({ fname: v.fname, lname: v.lname, phone: v.phone, email: v.email, company: v.company, site: v.site, address: v.address, city: v.city, country: v.country })
  }
}

/** What the preview encodes: the content itself (the saved code of a link/contact type encodes its tracked scan URL). */
function previewText(type: QrType, v: Values): string {
  switch (type) {
    case 'link':
      return v.url || 'https://example.com'
    case 'text':
      return v.text || 'Hello'
    case 'phone':
      return `tel:${v.phone ?? ''}`
    case 'email':
      return `mailto:${v.email ?? ''}`
    case 'sms':
      return `sms:${v.phone ?? ''}`
    case 'wifi':
      return `WIFI:T:${v.encryption || 'WPA'};S:${v.ssid ?? ''};P:${v.password ?? ''};;`
    case 'vcard':
      return `BEGIN:VCARD\nVERSION:3.0\nN:${v.lname ?? ''};${v.fname ?? ''}\nTEL:${v.phone ?? ''}\nEMAIL:${v.email ?? ''}\nEND:VCARD`
  }
}

/** Each type's fields: the `data` key, its label, and the input's type. */
export const FIELDS: Record<QrType, [string, string, string?][]> = {
  link: [['url', 'Link URL', 'url']],
  text: [['text', 'Text', 'textarea']],
  phone: [['phone', 'Phone number', 'tel']],
  email: [
    ['email', 'Email address', 'email'],
    ['subject', 'Subject'],
    ['body', 'Message', 'textarea'],
  ],
  sms: [
    ['phone', 'Phone number', 'tel'],
    ['message', 'Message', 'textarea'],
  ],
  wifi: [
    ['ssid', 'Network name (SSID)'],
    ['password', 'Wi-Fi password', 'password'],
  ],
  vcard: [
    ['fname', 'First name'],
    ['lname', 'Last name'],
    ['phone', 'Phone number', 'tel'],
    ['email', 'Email address', 'email'],
    ['company', 'Company'],
    ['site', 'Website', 'url'],
    ['address', 'Street address'],
    ['city', 'City'],
    ['country', 'Country'],
  ],
}

/** GET /api/qr/:id/design: what a saved code was made from (its logo stays on the server). */
export interface QrDesign {
  type: QrType
  data: unknown
  foreground: string
  background: string
  logo: boolean
  name: string
}

/** The form's values for a saved code's `data`; content sent as one finished string only fills the fields it can. */
function valuesOf(type: QrType, data: unknown): Values {
  const values: Values = { encryption: 'WPA' }
  if (typeof data === 'string') {
    const key = { link: 'url', text: 'text', phone: 'phone' }[type as string]
    if (key) values[key] = data
    return values
  }
  if (data && typeof data === 'object') {
    for (const [k, v] of Object.entries(data)) {
      if (typeof v === 'string' || typeof v === 'number') values[k] = String(v)
      else if (typeof v === 'boolean') values[k] = v ? '1' : ''
    }
  }
  return values
}

/** `rgb(r,g,b)` as the colour input's `#rrggbb`. */
function hexOf(colour: string, fallback: string): string {
  const m = /^rgb\((\d{1,3}),(\d{1,3}),(\d{1,3})\)$/.exec(colour.replace(/\s+/g, ''))
  if (!m) return fallback
  return `#${m.slice(1).map((n) => Math.min(255, Number(n)).toString(16).padStart(2, '0')).join('')}`
}

export interface QrSubmit {
  name?: string
  type: QrType
  data: unknown
  foreground: string
  background: string
  logo?: string | null
}

/**
 * The API refuses colours too alike to scan (src/lib/colour.ts, bundled: the same rule): said
 * here, next to the colour fields, while they are chosen, rather than only by the refused save.
 * Saving stays offered.
 */
function ContrastNote({ id, foreground, background }: { id: string; foreground: string; background: string }) {
  if (!lowContrast(foreground, background)) return null
  // rounded down, so a ratio just under the minimum never reads as the minimum
  const ratio = Math.floor(contrastRatio(parseColour(foreground)!, parseColour(background)!) * 10) / 10
  return (
    <p className="note" id={id}>
      Too little contrast for a scanner ({ratio.toFixed(1)}:1; at least {MIN_CONTRAST}:1): darken the foreground or lighten the background.
    </p>
  )
}

/** Type, content, colours, logo and size, with a preview redrawn on every change. */
export function QrDesigner(props: { initial?: QrDesign; busy: boolean; error?: string; onSubmit: (v: QrSubmit) => void; onCancel: () => void }) {
  const initial = props.initial
  const editing = initial !== undefined
  const [name, setName] = useState(initial?.name ?? '')
  const [type, setType] = useState<QrType>(initial?.type ?? 'link')
  const [values, setValues] = useState<Values>(() => (initial ? valuesOf(initial.type, initial.data) : { encryption: 'WPA' }))
  const [fg, setFg] = useState(initial ? hexOf(initial.foreground, '#000000') : '#1b2030')
  const [bg, setBg] = useState(initial ? hexOf(initial.background, '#ffffff') : '#ffffff')
  const [logo, setLogo] = useState<string>()
  // a saved code's logo stays on the server: kept unless the user removes or replaces it
  const [savedLogo, setSavedLogo] = useState(initial?.logo ?? false)
  const [logoError, setLogoError] = useState<string>()
  const [size, setSize] = useState(300)
  const canvas = useRef<HTMLCanvasElement>(null)
  const contrastId = useId()

  useEffect(() => {
    const el = canvas.current
    if (!el) return
    let cancelled = false
    QRCode.toCanvas(el, previewText(type, values), { width: size, margin: 2, errorCorrectionLevel: logo ? 'H' : 'M', color: { dark: fg, light: bg } })
      .then(() => {
        if (!logo || cancelled) return
        const img = new Image()
        img.onload = () => {
          if (cancelled) return
          const ctx = el.getContext('2d')!
          const s = el.width * 0.22
          const x = (el.width - s) / 2
          ctx.fillStyle = bg
          ctx.fillRect(x - 4, x - 4, s + 8, s + 8)
          ctx.drawImage(img, x, x, s, s)
        }
        img.src = logo
      })
      .catch(() => undefined)
    return () => {
      cancelled = true
    }
  }, [type, values, fg, bg, logo, size])

  function onLogo(file: File | undefined) {
    setLogoError(undefined)
    if (!file) return
    if (!/^image\/(png|jpeg)$/.test(file.type)) return setLogoError('The logo must be a PNG or JPEG image.')
    if (file.size > 256 * 1024) return setLogoError('The logo must be at most 256 KB.')
    const reader = new FileReader()
    reader.onload = () => setLogo(String(reader.result))
    reader.readAsDataURL(file)
  }

  function submit(e: FormEvent) {
    e.preventDefault()
    props.onSubmit({ name: name.trim() || undefined, type, data: dataOf(type, values), foreground: fg, background: bg, logo: logo ?? (editing && !savedLogo ? null : undefined) })
  }

  const set = (k: string, v: string) => setValues({ ...values, [k]: v })
  const contrastWarning = lowContrast(fg, bg) ? contrastId : undefined
  // an API message names the form's fields by body name: `data` for a one-field type, else `data.email` and the like
  const dataName = (k: string) => (FIELDS[type].length === 1 ? 'data' : `data.${k}`)
  const labels = { name: 'Name', type: 'Type', foreground: 'Foreground colour', background: 'Background colour', logo: 'Logo', 'data.encryption': 'Security', ...Object.fromEntries(FIELDS[type].map(([k, label]) => [dataName(k), label])) }
  const refused = useRefusal(props.error, labels)
  return (
    <form onSubmit={submit} className="grid two">
      <div>
        <Field label="Name">{(id) => <input id={id} {...refused.field('name')} value={name} onChange={(e) => setName(e.target.value)} placeholder="Spring flyer" />}</Field>
        <Field label="Type">
          {(id) => (
            <select id={id} {...refused.field('type')} value={type} onChange={(e) => setType(e.target.value as QrType)}>
              {QR_TYPES.map(([v, l]) => (
                <option key={v} value={v}>
                  {l}
                </option>
              ))}
            </select>
          )}
        </Field>
        {FIELDS[type].map(([key, label, kind]) => (
          <Field key={`${type}-${key}`} label={label}>
            {(id) =>
              kind === 'textarea' ? (
                <textarea id={id} {...refused.field(dataName(key))} rows={3} value={values[key] ?? ''} onChange={(e) => set(key, e.target.value)} />
              ) : (
                <input id={id} {...refused.field(dataName(key))} type={kind ?? 'text'} value={values[key] ?? ''} onChange={(e) => set(key, e.target.value)} />
              )
            }
          </Field>
        ))}
        {type === 'wifi' && (
          <>
            <Field label="Security">
              {(id) => (
                <select id={id} {...refused.field('data.encryption')} value={values.encryption ?? 'WPA'} onChange={(e) => set('encryption', e.target.value)}>
                  <option value="WPA">WPA/WPA2</option>
                  <option value="WEP">WEP</option>
                  <option value="nopass">None</option>
                </select>
              )}
            </Field>
            <label className="check">
              <input type="checkbox" checked={values.hidden === '1'} onChange={(e) => set('hidden', e.target.checked ? '1' : '')} /> Hidden network
            </label>
          </>
        )}
        <div className="row">
          <Field label="Foreground colour">{(id) => <input id={id} type="color" value={fg} onChange={(e) => setFg(e.target.value)} {...refused.field('foreground', contrastWarning)} />}</Field>
          <Field label="Background colour">{(id) => <input id={id} type="color" value={bg} onChange={(e) => setBg(e.target.value)} {...refused.field('background', contrastWarning)} />}</Field>
        </div>
        <ContrastNote id={contrastId} foreground={fg} background={bg} />
        <Field label="Logo" hint="PNG or JPEG, at most 256 KB; it sits in the middle of the code.">
          {(id, hint) => <input id={id} {...refused.field('logo', hint)} type="file" accept="image/png,image/jpeg" onChange={(e) => onLogo(e.target.files?.[0])} />}
        </Field>
        {(logo || savedLogo) && (
          <p>
            {!logo && <span className="hint">This code has a logo (not drawn in the preview). </span>}
            <button type="button" className="secondary small" onClick={() => (setLogo(undefined), setSavedLogo(false))}>
              Remove logo
            </button>
          </p>
        )}
        <ErrorNote message={logoError} />
        <Field label="Preview size" hint={`${size} × ${size} pixels`}>
          {(id, hint) => <input id={id} aria-describedby={hint} type="range" min={150} max={600} step={10} value={size} onChange={(e) => setSize(Number(e.target.value))} />}
        </Field>
      </div>
      <div>
        <p className="label" id="qr-preview-label">
          Live preview
        </p>
        <div className="qr-preview">
          <canvas ref={canvas} role="img" aria-labelledby="qr-preview-label" />
        </div>
        <p className="hint">Codes of links, phone numbers, emails, SMS and contacts are saved pointing at a tracked scan address, so their scans are counted.</p>
        <ErrorNote {...refused.note} />
        <div className="actions">
          <button type="button" className="secondary" onClick={props.onCancel}>
            Cancel
          </button>
          <button type="submit" disabled={props.busy}>
            {editing ? 'Save QR code' : 'Create QR code'}
          </button>
        </div>
      </div>
    </form>
  )
}
