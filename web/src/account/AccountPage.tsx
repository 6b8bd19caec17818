import { useState, type FormEvent } from 'react'
import { api } from '../api/client'
import type { Account } from '../api/types'
import { useSession } from '../session'
import { announce } from '../ui/announce'
import { useConfirm } from '../ui/confirm'
import { formatDateTime } from '../ui/format'
import { useAction, useLoad } from '../ui/hooks'
import { Badge, CopyButton, ErrorNote, Field, Loading, PageHead } from '../ui/parts'
import { useRefusal } from '../ui/refusal'
import { PlanUsage } from './PlanUsage'

/** The account forms' labels by body name: an API message names its field by the latter. */
const LABELS = {
  email: 'Email address',
  password: 'New password',
}

export function AccountPage() {
  const { user, publicUrl } = useSession()
  const account = useLoad(() => api.get<{ data: Account }>('/api/account'), [])
  const a = account.data?.data
  return (
    <>
      <PageHead title="Account" />
      <ErrorNote message={account.error} onRetry={account.reload} />
      {account.loading && !a && <Loading />}
      {a && (
        <div className="grid two">
          <section className="card" aria-labelledby="profile-head">
            <h2 id="profile-head">Profile</h2>
            <dl className="kv">
              <dt>Username</dt>
              <dd>{a.username}</dd>
              <dt>Plan</dt>
              <dd>
                <Badge tone={a.status === 'pro' ? 'good' : 'plain'}>{user.plan.name}</Badge>
                {user.admin && (
                  <>
                    {' '}
                    <Badge>admin</Badge>
                  </>
                )}
              </dd>
              <dt>Plan expires</dt>
              <dd>{a.expires ? formatDateTime(a.expires) : 'Never'}</dd>
              <dt>Registered</dt>
              <dd>{formatDateTime(a.registered)}</dd>
            </dl>
          </section>
          <PlanUsage />
          <ApiKey publicUrl={publicUrl} />
          <EmailForm current={a.email} onDone={account.reload} />
          <PasswordForm />
        </div>
      )}
    </>
  )
}

function ApiKey({ publicUrl }: { publicUrl: string }) {
  const [key, setKey] = useState<string>()
  const show = useAction()
  const confirm = useConfirm()
  async function rotate() {
    const yes = await confirm({
      title: 'Rotate your API key?',
      message: <p>The current key stops working at once: every script and app using it must get the new one.</p>,
      confirm: 'Rotate key',
    })
    if (!yes) return
    await show.run(async () => {
      setKey((await api.post<{ apikey: string }>('/api/account/apikey')).apikey)
      announce('A new API key has been issued; the old one no longer works.')
    })
  }
  return (
    <section className="card" aria-labelledby="key-head">
      <h2 id="key-head">API key</h2>
      <p className="sub">
        Send it as <code>Authorization: Bearer &lt;key&gt;</code> to {publicUrl}/api/. Keep it secret.
      </p>
      <ErrorNote message={show.error} />
      {key ? (
        <p className="keybox">
          <code aria-label="Your API key">{key}</code>
          <CopyButton value={key} label="Copy key" what="API key copied" of="" />
          <button type="button" className="ghost small" onClick={() => setKey(undefined)}>
            Hide API key
          </button>
        </p>
      ) : (
        <p>
          <button type="button" className="secondary" disabled={show.busy} onClick={() => show.run(async () => setKey((await api.get<{ apikey: string }>('/api/account/apikey')).apikey))}>
            Show API key
          </button>
        </p>
      )}
      <p>
        <button type="button" className="danger" onClick={rotate} disabled={show.busy}>
          Rotate key
        </button>
      </p>
    </section>
  )
}

function EmailForm({ current, onDone }: { current: string; onDone: () => void }) {
  const [email, setEmail] = useState(current)
  const save = useAction()
  const refused = useRefusal(save.error, LABELS)
  async function submit(e: FormEvent) {
    e.preventDefault()
    if (await save.run(() => api.put('/api/account/update', { email: email.trim() }))) {
      announce(`Email changed to ${email.trim()}.`)
      onDone()
    }
  }
  return (
    <form className="card" onSubmit={submit} aria-labelledby="email-head">
      <h2 id="email-head">Email</h2>
      <Field label={LABELS.email}>{(id) => <input id={id} {...refused.field('email')} type="email" value={email} onChange={(e) => setEmail(e.target.value)} autoComplete="email" required />}</Field>
      <ErrorNote {...refused.note} />
      <button type="submit" disabled={save.busy || email.trim() === current}>
        Change email
      </button>
    </form>
  )
}

function PasswordForm() {
  const [password, setPassword] = useState('')
  const [again, setAgain] = useState('')
  const save = useAction()
  const refused = useRefusal(save.error, LABELS)
  async function submit(e: FormEvent) {
    e.preventDefault()
    if (password !== again) return save.setError('The two passwords differ: type the same one twice.')
    // the API signs out every session of the account when the password changes, this one included
    if (await save.run(() => api.put('/api/account/update', { password }))) window.location.assign('/login?done=password')
  }
  return (
    <form className="card" onSubmit={submit} aria-labelledby="password-head">
      <h2 id="password-head">Password</h2>
      <p className="sub">Changing it signs you out everywhere, this browser included; your API key keeps working.</p>
      <Field label={LABELS.password}>{(id) => <input id={id} {...refused.field('password')} type="password" value={password} onChange={(e) => setPassword(e.target.value)} autoComplete="new-password" required />}</Field>
      <Field label="New password again">{(id) => <input id={id} type="password" value={again} onChange={(e) => setAgain(e.target.value)} autoComplete="new-password" required />}</Field>
      <ErrorNote {...refused.note} />
      <button type="submit" disabled={save.busy || !password}>
        Change password
      </button>
    </form>
  )
}
