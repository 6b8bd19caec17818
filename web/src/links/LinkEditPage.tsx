import { Link, useLocation, useNavigate, useParams } from 'react-router'
import { api } from '../api/client'
import type { LinkSingle } from '../api/types'
import { announce } from '../ui/announce'
import { useAction, useLoad } from '../ui/hooks'
import { ErrorNote, Loading, PageHead } from '../ui/parts'
import { LinkForm } from './LinkForm'
import { useLinkOptions } from './options'
import { QuarantineNote } from './quarantine'
import { TestLinkPanel } from './TestLinkPanel'

export function LinkEditPage() {
  const { id } = useParams()
  const navigate = useNavigate()
  // the page opened first in its tab (a bookmark, a new tab) has nothing of the dashboard to go
  // back to: Cancel then shows the link rather than doing nothing or leaving the dashboard
  const opened = useLocation().key === 'default'
  const link = useLoad(() => api.get<LinkSingle>(`/api/url/${id}?full=1`), [id])
  const options = useLinkOptions()
  const save = useAction()
  // a missing link (or another account's) stays missing: no "Try again" for a 404
  const failed = link.error ? link : options.error ? options : undefined

  async function onSubmit(body: Record<string, unknown>) {
    if (await save.run(() => api.put(`/api/url/${id}/update`, body))) {
      announce('Link saved.')
      navigate(`/links/${id}`)
    }
  }

  return (
    <>
      <p className="crumbs">
        <Link to="/links">Link list</Link> / <Link to={`/links/${id}`}>{link.data?.details.shorturl ?? 'Link'}</Link>
      </p>
      <PageHead title="Edit link" />
      <ErrorNote message={failed?.error} onRetry={failed && failed.status !== 404 ? failed.reload : undefined} />
      {(link.loading || options.loading) && <Loading />}
      {link.data?.details.quarantined && <QuarantineNote editing />}
      {link.data && options.data && (
        <div className="card">
          <LinkForm mode="edit" initial={link.data.details} options={options.data} busy={save.busy} error={save.error} onSubmit={onSubmit} onCancel={() => (opened ? navigate(`/links/${id}`) : navigate(-1))} />
        </div>
      )}
      {link.data && <TestLinkPanel id={link.data.id} />}
    </>
  )
}
