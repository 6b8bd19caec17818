import { useState } from 'react'
import { Link, useParams } from 'react-router'
import { api, qs } from '../api/client'
import type { ChannelItem, ListOf, Qr } from '../api/types'
import { announce } from '../ui/announce'
import { formatDate } from '../ui/format'
import { useAction, useLoad } from '../ui/hooks'
import { LinkPicker } from '../ui/LinkPicker'
import { EmptyState, ErrorNote, Loading, Modal, PageHead, Pager } from '../ui/parts'
import { pageParam, useQueryState } from '../ui/query'

/** Items a page: a channel may hold any number of links and QR codes. */
const PER_PAGE = 50

/**
 * The channel's name: the API has no single-channel read, so the list is searched, a thousand a
 * page (an account with more than a thousand channels has this one on a later page).
 */
async function channelNamed(id: number): Promise<string | undefined> {
  for (let page = 1; ; page++) {
    const { data } = await api.get<ListOf<'channels', { id: number; name: string }>>(`/api/channels${qs({ page, limit: 1000 })}`)
    const found = data.channels.find((c) => c.id === id)
    if (found || page >= data.maxpage) return found?.name
  }
}

export function ChannelPage() {
  const { id } = useParams()
  const { params, set } = useQueryState()
  const page = pageParam(params.get('page'))
  const items = useLoad(() => api.get<ListOf<'items', ChannelItem>>(`/api/channel/${id}${qs({ page, limit: PER_PAGE })}`), [id, page])
  const channel = useLoad(() => channelNamed(Number(id)), [id])
  const qrs = useLoad(() => api.get<ListOf<'qrs', Qr>>('/api/qr?limit=100'), [])
  const [adding, setAdding] = useState(false)
  const assign = useAction()
  const name = channel.data ?? 'Channel'
  const rows = items.data?.data.items
  const add = (type: 'links' | 'qr', itemId: number, label: string) =>
    assign.run(async () => {
      await api.post(`/api/channel/${id}/assign/${type}/${itemId}`)
      announce(`${label} added to ${name}.`)
      items.reload()
    })

  return (
    <>
      <p className="crumbs">
        <Link to="/channels">Channel list</Link> / {name}
      </p>
      <PageHead title={name}>
        <button type="button" onClick={() => (assign.setError(undefined), setAdding(true))}>Add items</button>
      </PageHead>
      <ErrorNote message={items.error} onRetry={items.reload} />
      {items.loading && !rows && <Loading />}
      {rows?.length === 0 && items.data?.data.result === 0 && (
        <EmptyState title="This channel is empty" action={<button type="button" onClick={() => setAdding(true)}>Add links or QR codes</button>}>
          Add links and QR codes to keep them together.
        </EmptyState>
      )}
      {rows && rows.length > 0 && (
        <div className="table-wrap">
          <table>
            <caption className="offscreen">Items of {name}</caption>
            <thead>
              <tr>
                <th scope="col">Item</th>
                <th scope="col">Kind</th>
                <th scope="col" className="hide-small">Added</th>
              </tr>
            </thead>
            <tbody>
              {rows.map((it) => (
                <tr key={`${it.type}-${it.id}`}>
                  <td>
                    {it.type === 'links' ? <Link to={`/links/${it.id}`}>{it.title || it.link}</Link> : it.type === 'qr' ? <Link to={`/qr/${it.id}`}>{it.title}</Link> : it.title}
                    <span className="sub truncate">{it.link}</span>
                  </td>
                  <td>{it.type === 'links' ? 'Link' : it.type === 'qr' ? 'QR code' : 'Bio page'}</td>
                  <td className="hide-small">{formatDate(it.date)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {items.data && <Pager page={items.data.data.currentpage} maxPage={items.data.data.maxpage} total={items.data.data.result} noun="items" onPage={(p, fix) => set({ page: p }, { replace: fix })} />}
      <Modal title={`Add items to ${name}`} open={adding} onClose={() => setAdding(false)} wide>
        <ErrorNote message={assign.error} />
        <h3>Links</h3>
        <LinkPicker action="Add" done="Added" member={{ space: Number(id) }} onPick={(itemId, short) => add('links', itemId, short)} />
        <h3>QR codes</h3>
        {qrs.data?.data.qrs.length === 0 && <p className="sub">You have no QR codes.</p>}
        <ul className="link-list">
          {qrs.data?.data.qrs.map((q) => (
            <li key={q.id} className="link-item">
              <span>{q.name}</span>
              <button type="button" className="secondary small" aria-label={`Add QR code ${q.name}`} onClick={() => add('qr', q.id, q.name)}>
                Add
              </button>
            </li>
          ))}
        </ul>
      </Modal>
    </>
  )
}
