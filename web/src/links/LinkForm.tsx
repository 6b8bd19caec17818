import { useId, useLayoutEffect, useMemo, useRef, useState, type FormEvent } from 'react'
import type { LinkDetails } from '../api/types'
import { apiToLocalInput, localInputToApi } from '../ui/format'
import { ErrorNote, Field } from '../ui/parts'
import { marks } from '../ui/refusal'
import type { LinkOptions } from './options'
import { TargetRows, type Refusal, type Row } from './TargetRows'
import { LABELS, LISTS, readRefusal, type ListName, type Sent } from './refusal'
import { SocialCard } from './SocialCard'
import { TargetingSection, type ListProps } from './TargetingSection'
import { GroupingSection } from './GroupingSection'
import { usePlan } from '../plan'

const toRows = (m: Record<string, string> | undefined): Row[] => Object.entries(m ?? {}).map(([key, link]) => ({ key, link }))
const filled = (r: Row) => !!(r.key.trim() && r.link.trim())
const fromRows = (rows: Row[], keyName: string) => rows.filter(filled).map((r) => ({ [keyName]: r.key.trim(), link: r.link.trim() }))
/** The plan feature each list of rows needs (a language's destination needs none). */
const LIST_FEATURES = { geotarget: 'geo', devicetarget: 'device', parameters: 'parameters', languagetarget: undefined } as const

/** The form row of each entry sent (blank rows are left out), to find the row an API message numbers. */
const sentRows = (rows: Row[], keep: (r: Row) => boolean) => rows.flatMap((r, i) => (keep(r) ? [i] : []))

/**
 * Create and edit form with every field of /api/url/add. It locks what the session says the plan
 * lacks (unless the link already uses it, so it can be dropped), and otherwise only gathers values:
 * the API decides what is allowed (plan switches, taken aliases, bad URLs) and its message is
 * shown, with the field it names marked (and its section opened) and called by its label here.
 */
export function LinkForm(props: {
  mode: 'create' | 'edit'
  initial?: LinkDetails
  options: LinkOptions
  busy: boolean
  error?: string
  onSubmit: (body: Record<string, unknown>) => void
  onCancel?: () => void
  /** told whether the form now holds changes, so closing it can ask before they are lost */
  onChanged?: (changed: boolean) => void
}) {
  const d = props.initial
  const o = props.options
  const [url, setUrl] = useState(d?.longurl ?? '')
  const [alias, setAlias] = useState(d?.alias ?? '')
  const [domain, setDomain] = useState(d?.domain ?? '')
  const [title, setTitle] = useState(d?.title ?? '')
  const [description, setDescription] = useState(d?.description ?? '')
  const [type, setType] = useState(d?.type ?? 'direct')
  const [password, setPassword] = useState('')
  const [removePassword, setRemovePassword] = useState(false)
  const [expiry, setExpiry] = useState(apiToLocalInput(d?.expiry))
  const initialMaxClicks = d?.expiration_clicks ? String(d.expiration_clicks) : ''
  const [maxClicks, setMaxClicks] = useState(initialMaxClicks)
  const [expiredUrl, setExpiredUrl] = useState(d?.expiration_url ?? '')
  const [geo, setGeo] = useState<Row[]>(toRows(d?.location))
  const [device, setDevice] = useState<Row[]>(toRows(d?.device))
  const [language, setLanguage] = useState<Row[]>(toRows(d?.language))
  const [params, setParams] = useState<Row[]>((d?.parameters ?? []).map((p) => ({ key: p.name, link: p.value })))
  // Targeting opens for a link with targets; removing the last row must not fold it under the focus
  const [targeted] = useState(geo.length + device.length + language.length > 0)
  const [deepAuto, setDeepAuto] = useState(d?.deeplink?.auto ?? false)
  const [apple, setApple] = useState(d?.deeplink?.apple ?? '')
  const [google, setGoogle] = useState(d?.deeplink?.google ?? '')
  const [pixels, setPixels] = useState<number[]>(d?.pixels ?? [])
  const [channel, setChannel] = useState(String(d?.channels?.[0] ?? ''))
  const [campaign, setCampaign] = useState(String(d?.campaign ?? ''))
  const [metaTitle, setMetaTitle] = useState(d?.metatitle ?? '')
  const [metaDescription, setMetaDescription] = useState(d?.metadescription ?? '')
  const [metaImage, setMetaImage] = useState(d?.metaimage ?? '')
  const [status, setStatus] = useState<'public' | 'private'>(d?.status === 'public' ? 'public' : 'private')
  // sent only when changed: an untouched form must not pin the service's REDIRECT_STATUS on the link
  const initialStatus = String(d?.redirectstatus ?? '')
  const [redirectStatus, setRedirectStatus] = useState(initialStatus)
  const [cacheTtl, setCacheTtl] = useState(String(d?.cachettl ?? 0))
  const [fallback, setFallback] = useState(d?.fallback ?? '')

  const edit = props.mode === 'edit'
  const { locked } = usePlan()
  const aliasLock = locked('custom')
  // the alias stays editable (it is a named field of the contract, DECISIONS §10.1): its hint says what the plan lacks
  const aliasHint = aliasLock ? (edit ? aliasLock : `${aliasLock} Leave it empty for a random one.`) : ((domain && locked('alias')) || 'Optional; a random one is chosen otherwise.')
  const domainLock = locked('domain')
  // a page type the plan lacks: its pages are listed but cannot be chosen (the link's own stays)
  const pageLocks = { splash: o.splash.length ? locked('splash') : undefined, overlay: o.overlays.length ? locked('overlay') : undefined }
  const typeHint = [pageLocks.splash, pageLocks.overlay].filter(Boolean).join(' ') || undefined
  const blank = (v: string) => (v.trim() === '' ? (edit ? null : undefined) : v.trim())

  // the refusal of the last submit: which field, read against what that submit sent
  const form = useRef<HTMLFormElement>(null)
  const sent = useRef<Sent>({ rows: {}, pixels: [] })
  const errorId = useId()
  const refused = useMemo(() => (props.error ? readRefusal(props.error, sent.current) : undefined), [props.error])
  const refusal = (field: string, hint?: string): Refusal => marks(refused?.field === field && !refused.row, errorId, hint)
  const refusedRow = (list: ListName) => (refused?.field === list && refused.row ? { ...refused.row, refusal: marks(true, errorId) } : undefined)
  // a refused field in a closed section must be seen: its section opens, before the message takes
  // focus (a layout effect runs first), so the section's height does not push the message off screen
  useLayoutEffect(() => {
    form.current?.querySelectorAll('[aria-invalid="true"], [data-refused]').forEach((el) => {
      const section = el.closest('details')
      if (section) section.open = true
    })
  }, [refused])

  /** What a submit sends. */
  function bodyOf(): Record<string, unknown> {
    const body: Record<string, unknown> = {
      url: url.trim(),
      custom: alias.trim() || undefined,
      domain: domain || undefined,
      title: blank(title),
      type: type || undefined,
      expiry: expiry ? localInputToApi(expiry) : edit ? null : undefined,
      geotarget: fromRows(geo, 'location'),
      devicetarget: fromRows(device, 'device'),
      languagetarget: fromRows(language, 'language'),
      parameters: params.filter((p) => p.key.trim()).map((p) => ({ name: p.key.trim(), value: p.link })),
      pixels,
      channel: channel ? Number(channel) : edit ? null : undefined,
      campaign: campaign ? Number(campaign) : edit ? null : undefined,
      metatitle: blank(metaTitle),
      metadescription: blank(metaDescription),
      metaimage: blank(metaImage),
    }
    if (deepAuto || apple.trim() || google.trim()) body.deeplink = { auto: deepAuto, apple: apple.trim() || undefined, google: google.trim() || undefined }
    else if (edit) body.deeplink = null
    if (password) body.password = password
    else if (edit && removePassword) body.password = null
    if (!edit) {
      body.description = blank(description)
      body.status = status
      for (const k of ['geotarget', 'devicetarget', 'languagetarget', 'parameters', 'pixels'] as const) {
        if ((body[k] as unknown[]).length === 0) delete body[k]
      }
    }
    if (redirectStatus !== initialStatus) body.redirectstatus = redirectStatus ? Number(redirectStatus) : null
    if (cacheTtl.trim() !== String(d?.cachettl ?? 0)) body.cachettl = cacheTtl.trim() === '' ? (edit ? null : undefined) : Number(cacheTtl)
    body.fallback = blank(fallback)
    // 0 is no limit: an emptied field clears a limit the link had
    if (maxClicks.trim() !== initialMaxClicks) body.expiration_clicks = maxClicks.trim() === '' ? 0 : Number(maxClicks)
    body.expiration_url = blank(expiredUrl)
    for (const k of Object.keys(body)) if (body[k] === undefined) delete body[k]
    return body
  }
  // the form holds changes when it would send something other than it did untouched, or a row is
  // half filled in (a field typed in and emptied again, or an empty row added, is no change)
  const begun = [geo, device, language, params].map((rows) => rows.filter((r) => r.key.trim() || r.link.trim()))
  const sends = JSON.stringify([bodyOf(), begun])
  const untouched = useRef(sends)
  const changed = sends !== untouched.current
  const { onChanged } = props
  // told in the commit, not after it: an Escape pressed right after typing must already know
  useLayoutEffect(() => {
    onChanged?.(changed)
  }, [changed, onChanged])

  function submit(e: FormEvent) {
    e.preventDefault()
    const body = bodyOf()
    sent.current = {
      rows: { geotarget: sentRows(geo, filled), devicetarget: sentRows(device, filled), languagetarget: sentRows(language, filled), parameters: sentRows(params, (p) => !!p.key.trim()) },
      pixels,
    }
    props.onSubmit(body)
  }

  const textInput = (id: string, value: string, set: (v: string) => void, _label: string, bad?: Refusal) => <input id={id} {...bad} value={value} onChange={(e) => set(e.target.value)} />
  const list = (name: ListName): ListProps => ({
    legend: LISTS[name].legend,
    keyLabel: LISTS[name].key,
    linkLabel: LISTS[name].link,
    addLabel: LISTS[name].add,
    rowNoun: LISTS[name].row,
    refused: refusedRow(name),
    refusedAll: refused?.field === name && !refused.row ? errorId : undefined,
    locked: name === 'languagetarget' ? undefined : locked(LIST_FEATURES[name]),
  })

  return (
    <form onSubmit={submit} noValidate ref={form}>
      <Field label={LABELS.url} hint="Where the short link sends visitors.">
        {(id, hint) => <input id={id} {...refusal('url', hint)} type="url" required value={url} onChange={(e) => setUrl(e.target.value)} placeholder="https://example.com/page" />}
      </Field>
      <div className="row">
        <Field label={LABELS.custom} hint={aliasHint}>
          {(id, hint) => <input id={id} {...refusal('custom', hint)} value={alias} onChange={(e) => setAlias(e.target.value)} autoComplete="off" />}
        </Field>
        <Field label={LABELS.domain} hint={domainLock}>
          {(id, hint) => (
            <select id={id} {...refusal('domain', hint)} value={domain} onChange={(e) => setDomain(e.target.value)} disabled={!!domainLock && domain === ''}>
              <option value="">Default domain</option>
              {o.domains.map((dm) => (
                <option key={dm.id} value={dm.domain}>
                  {dm.domain.replace(/^https?:\/\//, '')}
                </option>
              ))}
            </select>
          )}
        </Field>
      </div>
      <Field label={LABELS.title}>{(id) => <input id={id} {...refusal('title')} value={title} onChange={(e) => setTitle(e.target.value)} />}</Field>
      {!edit && (
        <Field label={LABELS.description} hint="Only you see it.">
          {(id, hint) => <textarea id={id} {...refusal('description', hint)} value={description} onChange={(e) => setDescription(e.target.value)} rows={2} />}
        </Field>
      )}

      <details className="section">
        <summary>Redirect type, password and expiry</summary>
        <div>
          <Field label={LABELS.type} hint={typeHint}>
            {(id, hint) => (
              <select id={id} {...refusal('type', hint)} value={type} onChange={(e) => setType(e.target.value)}>
                <option value="direct">Direct redirect (default)</option>
                <option value="frame">Frame (keeps the short URL in the address bar)</option>
                <option value="splash">Splash page with a countdown</option>
                {o.splash.length > 0 && (
                  <optgroup label="Your splash pages">
                    {o.splash.map((s) => (
                      <option key={s.id} value={`splash-${s.id}`} disabled={!!pageLocks.splash && d?.type !== `splash-${s.id}`}>
                        Splash: {s.name}
                      </option>
                    ))}
                  </optgroup>
                )}
                {o.overlays.length > 0 && (
                  <optgroup label="Your CTA overlays">
                    {o.overlays.map((s) => (
                      <option key={s.id} value={`overlay-${s.id}`} disabled={!!pageLocks.overlay && d?.type !== `overlay-${s.id}`}>
                        Overlay: {s.name}
                      </option>
                    ))}
                  </optgroup>
                )}
              </select>
            )}
          </Field>
          <div className="row">
            <Field label={LABELS.password} hint={edit && d?.password ? 'This link has a password; type a new one to change it.' : 'Visitors must type it before they are sent on.'}>
              {(id, hint) => <input id={id} {...refusal('password', hint)} type="password" value={password} onChange={(e) => setPassword(e.target.value)} autoComplete="new-password" />}
            </Field>
            <Field label={LABELS.expiry} hint="In your time zone; after it the link stops working.">
              {(id, hint) => <input id={id} {...refusal('expiry', hint)} type="datetime-local" value={expiry} onChange={(e) => setExpiry(e.target.value)} />}
            </Field>
          </div>
          <div className="row">
            <Field label={LABELS.expiration_clicks} hint="Visits by people (not bots) before the link stops working; empty for no limit.">
              {(id, hint) => <input id={id} {...refusal('expiration_clicks', hint)} type="number" min={1} step={1} value={maxClicks} onChange={(e) => setMaxClicks(e.target.value)} />}
            </Field>
            <Field label={LABELS.expiration_url} hint="Once expired, by date or by clicks; without it visitors see an expired page.">
              {(id, hint) => <input id={id} {...refusal('expiration_url', hint)} type="url" value={expiredUrl} onChange={(e) => setExpiredUrl(e.target.value)} placeholder="https://example.com/offer-ended" />}
            </Field>
          </div>
          {edit && d?.password && (
            <label className="check">
              <input type="checkbox" checked={removePassword} onChange={(e) => setRemovePassword(e.target.checked)} /> Remove the password
            </label>
          )}
          {!edit && (
            <Field label={LABELS.status}>
              {(id) => (
                <select id={id} {...refusal('status')} value={status} onChange={(e) => setStatus(e.target.value as 'public' | 'private')}>
                  <option value="private">Private</option>
                  <option value="public">Public</option>
                </select>
              )}
            </Field>
          )}
        </div>
      </details>

      <details className="section">
        <summary>Redirect status, caching and fallback</summary>
        <div>
          <div className="row">
            <Field label={LABELS.redirectstatus} hint="301 and 308 are permanent (search engines move to the destination); 302 and 307 are temporary.">
              {(id, hint) => (
                <select id={id} {...refusal('redirectstatus', hint)} value={redirectStatus} onChange={(e) => setRedirectStatus(e.target.value)}>
                  {!edit && <option value="">Service default</option>}
                  {['301', '302', '307', '308'].map((v) => (
                    <option key={v}>{v}</option>
                  ))}
                </select>
              )}
            </Field>
            <Field
              label={LABELS.cachettl}
              hint="Above 0, browsers and proxies may answer repeat visits themselves, so those visits never reach Kurz and are not counted as clicks."
            >
              {(id, hint) => <input id={id} {...refusal('cachettl', hint)} type="number" min={0} step={1} value={cacheTtl} onChange={(e) => setCacheTtl(e.target.value)} />}
            </Field>
          </div>
          <Field label={LABELS.fallback} hint="Where visitors go while the destination fails its health check.">
            {(id, hint) => <input id={id} {...refusal('fallback', hint)} type="url" value={fallback} onChange={(e) => setFallback(e.target.value)} placeholder="https://example.com/maintenance" />}
          </Field>
        </div>
      </details>

      <TargetingSection open={targeted} geo={geo} device={device} language={language} onGeo={setGeo} onDevice={setDevice} onLanguage={setLanguage} list={list} />

      <details className="section">
        <summary>Deep links and parameters</summary>
        <div>
          <label className="check">
            <input type="checkbox" {...refusal('deeplink.auto')} checked={deepAuto} onChange={(e) => setDeepAuto(e.target.checked)} /> Build app links from the destination automatically
          </label>
          <div className="row">
            <Field label={LABELS['deeplink.apple']}>{(id) => <input id={id} {...refusal('deeplink.apple')} type="url" value={apple} onChange={(e) => setApple(e.target.value)} placeholder="https://apps.apple.com/…" />}</Field>
            <Field label={LABELS['deeplink.google']}>{(id) => <input id={id} {...refusal('deeplink.google')} type="url" value={google} onChange={(e) => setGoogle(e.target.value)} placeholder="https://play.google.com/…" />}</Field>
          </div>
          <TargetRows
            {...list('parameters')}
            hint="Added to the destination's query string."
            linkType="text"
            rows={params}
            onChange={setParams}
            keyInput={textInput}
          />
        </div>
      </details>

      <GroupingSection
        options={o}
        channel={channel}
        campaign={campaign}
        pixels={pixels}
        onChannel={setChannel}
        onCampaign={setCampaign}
        onPixels={setPixels}
        refusal={refusal}
        pixelsRefused={refused?.field === 'pixels' ? errorId : undefined}
        locks={{ campaign: locked('bundle'), pixels: locked('pixels') }}
      />

      <details className="section">
        <summary>Social card</summary>
        <div className="grid two">
          <div>
            <Field label={LABELS.metatitle}>{(id) => <input id={id} {...refusal('metatitle')} value={metaTitle} onChange={(e) => setMetaTitle(e.target.value)} />}</Field>
            <Field label={LABELS.metadescription}>{(id) => <textarea id={id} {...refusal('metadescription')} rows={3} value={metaDescription} onChange={(e) => setMetaDescription(e.target.value)} />}</Field>
            <Field label={LABELS.metaimage} hint="A .jpg or .png on https.">
              {(id, hint) => <input id={id} {...refusal('metaimage', hint)} type="url" value={metaImage} onChange={(e) => setMetaImage(e.target.value)} />}
            </Field>
          </div>
          <SocialCard url={url} title={metaTitle || title} description={metaDescription} image={metaImage} />
        </div>
      </details>

      <ErrorNote message={refused?.message ?? props.error} id={errorId} />
      <div className="actions">
        {props.onCancel && (
          <button type="button" className="secondary" onClick={props.onCancel}>
            Cancel
          </button>
        )}
        <button type="submit" disabled={props.busy}>
          {edit ? 'Save changes' : 'Create link'}
        </button>
      </div>
    </form>
  )
}
