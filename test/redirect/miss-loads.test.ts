import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { batchedLoads, MAX_KEYS } from '../../src/redirect/miss-loads.js'
import { loadLinksByAlias, toServeLink } from '../../src/redirect/loader.js'
import { appWith, type TestApp, type TestUser } from '../helpers/app.js'
import { addLink, makePage } from '../helpers/fixtures.js'
import { expectPage, expectRedirect, visit } from '../helpers/visits.js'

/** A load function that records the keys of each call and answers when told to. */
function recordingLoad() {
  const calls: number[][] = []
  const pending: { keys: number[]; answer: (fail?: Error) => void }[] = []
  const load = (keys: readonly number[]) =>
    new Promise<string[]>((resolve, reject) => {
      calls.push([...keys])
      pending.push({ keys: [...keys], answer: (fail) => (fail ? reject(fail) : resolve(keys.map((k) => `v${k}`))) })
    })
  return { calls, pending, load }
}

const turn = () => new Promise((r) => setImmediate(r))

describe('batchedLoads', () => {
  it('sends the misses of one turn of the event loop in one load, each answered with its own value', async () => {
    const { calls, pending, load } = recordingLoad()
    const get = batchedLoads(load, 1)
    const answers = Promise.all([1, 2, 3].map(get))
    await turn()
    expect(calls).toEqual([[1, 2, 3]])
    pending[0].answer()
    expect(await answers).toEqual(['v1', 'v2', 'v3'])
  })

  it('holds misses while the slots are busy and sends them together when one frees', async () => {
    const { calls, pending, load } = recordingLoad()
    const get = batchedLoads(load, 1)
    const first = get(1)
    await turn()
    const later = [get(2), get(3)]
    await turn()
    const last = get(4)
    await turn()
    expect(calls).toEqual([[1]]) // one slot: the rest wait
    pending[0].answer()
    expect(await first).toBe('v1')
    await turn()
    expect(calls).toEqual([[1], [2, 3, 4]])
    pending[1].answer()
    expect(await Promise.all([...later, last])).toEqual(['v2', 'v3', 'v4'])
  })

  it('runs as many loads at once as it has slots', async () => {
    const { calls, pending, load } = recordingLoad()
    const get = batchedLoads(load, 2)
    const a = get(1)
    await turn()
    const b = get(2)
    await turn()
    const c = get(3)
    await turn()
    expect(calls).toEqual([[1], [2]])
    pending[1].answer()
    expect(await b).toBe('v2')
    await turn()
    expect(calls).toEqual([[1], [2], [3]])
    pending[0].answer()
    pending[2].answer()
    expect([await a, await c]).toEqual(['v1', 'v3'])
  })

  it(`asks for at most ${MAX_KEYS} keys a load`, async () => {
    const { calls, pending, load } = recordingLoad()
    const get = batchedLoads(load, 4)
    const all = Promise.all(Array.from({ length: MAX_KEYS + 5 }, (_, i) => get(i)))
    await turn()
    expect(calls.map((keys) => keys.length)).toEqual([MAX_KEYS, 5])
    for (const p of pending) p.answer()
    expect((await all).at(-1)).toBe(`v${MAX_KEYS + 4}`)
  })

  it('a failed load fails its own misses only, and frees its slot', async () => {
    const { calls, pending, load } = recordingLoad()
    const get = batchedLoads(load, 1)
    const failed = Promise.allSettled([get(1), get(2)])
    await turn()
    const next = get(3)
    await turn()
    pending[0].answer(new Error('database away'))
    expect((await failed).map((r) => r.status)).toEqual(['rejected', 'rejected'])
    await turn()
    expect(calls).toEqual([[1, 2], [3]])
    pending[1].answer()
    expect(await next).toBe('v3')
  })
})

describe('cache misses of many aliases in one query', () => {
  let t: TestApp
  let pro: TestUser
  let domainId: number

  beforeAll(async () => {
    ;[t, pro] = await appWith({ plan: 'pro' })
    const added = await pro.api.post('/api/domain/add', { domain: 'https://go.batch.test' })
    expect(added.statusCode).toBe(200)
    domainId = added.json().id
  })
  afterAll(() => t?.close())

  it('answers each key with its own link: its alias, an earlier alias, its domain, or nothing', async () => {
    const plain = await addLink(pro, { url: 'https://example.com/plain', custom: 'mb-plain' })
    const renamed = await addLink(pro, { url: 'https://example.com/renamed', custom: 'mb-before' })
    expect((await pro.api.put(`/api/url/${renamed}/update`, { url: 'https://example.com/renamed', custom: 'mb-after' })).statusCode).toBe(200)
    const branded = await addLink(pro, { url: 'https://example.com/branded', custom: 'mb-plain', domain: 'go.batch.test' })

    const keys = [
      { d: 0, alias: 'mb-missing' },
      { d: 0, alias: 'mb-plain' },
      { d: domainId, alias: 'mb-plain' },
      { d: 0, alias: 'mb-before' },
      { d: 0, alias: 'mb-after' },
      { d: domainId, alias: 'mb-after' },
      { d: 0, alias: "mb-'quoted\\" },
      { d: 0, alias: 'mb-plain' },
    ]
    const rows = await loadLinksByAlias(t.app.db, keys)
    expect(rows.map((r) => r?.id ?? null)).toEqual([null, plain, branded, renamed, renamed, null, null, plain])
    expect(rows[2]!.url).toBe('https://example.com/branded')
    expect(rows[3]!.alias).toBe('mb-after')
  })

  it('answers every field a visit is served from, with its type: dates, json, targets in order, pixels and page', async () => {
    const expiry = '2031-05-06T07:08:09.000Z'
    const splash = await makePage(t, pro.user.id, 'splash')
    const pixel = await pro.api.post('/api/pixel/add', { type: 'gtmpixel', name: 'mb-pixel', tag: 'GTM-MB1' })
    expect(pixel.statusCode).toBe(200)
    const id = await addLink(pro, {
      url: 'https://example.com/full',
      custom: 'mb-full',
      expiry: '2031-05-06 07:08:09',
      type: String(splash.id),
      pixels: [pixel.json().id],
      geotarget: [{ location: 'Canada', link: 'https://example.com/ca' }, { location: 'France', link: 'https://example.com/fr' }],
      metatitle: 'Full "title" <b>',
    })
    const [full, bare] = await loadLinksByAlias(t.app.db, [{ d: 0, alias: 'mb-full' }, { d: 0, alias: 'mb-plain' }])
    expect(full!.id).toBe(id)
    expect(full!.expiresAt).toBeInstanceOf(Date)
    expect(full!.expiresAt!.toISOString()).toBe(expiry)
    expect(full!.metaTitle).toBe('Full "title" <b>')
    expect(full!.parameters).toEqual([])
    expect(full!.targets!.map((x) => x.url)).toEqual(['https://example.com/ca', 'https://example.com/fr'])
    expect(full!.pixels).toEqual([{ id: pixel.json().id, type: 'gtmpixel', tag: 'GTM-MB1' }])
    expect(full!.page).toMatchObject({ id: splash.id, kind: 'splash' })
    expect(toServeLink(full!, 0).page!.createdAt).toBeInstanceOf(Date)
    expect(bare!.expiresAt).toBeNull()
    expect(bare!.targets).toBeNull()
    expect(bare!.pixels).toBeNull()
    expect(bare!.page).toBeNull()
    expect(typeof bare!.clicks).toBe('number')
  })

  it('serves a burst of first visits of different links, each with its own destination', async () => {
    const n = 60
    for (let i = 0; i < n; i++) await addLink(pro, { url: `https://example.com/burst/${i}`, custom: `mb-burst-${i}` })
    const before = (await t.app.inject({ method: 'GET', url: '/metrics' })).body
    const answers = await Promise.all([
      ...Array.from({ length: n }, (_, i) => visit(t, `/mb-burst-${i}`)),
      visit(t, '/mb-burst-none'),
      visit(t, '/mb-burst-7', { host: 'go.batch.test' }),
    ])
    for (let i = 0; i < n; i++) expectRedirect(answers[i], 302, `https://example.com/burst/${i}`)
    expectPage(answers[n], 404)
    expectPage(answers[n + 1], 404)
    const misses = (text: string) => Number(/^kurz_redirect_cache_lookups_total\{result="miss"\} (\d+)$/m.exec(text)?.[1] ?? 0)
    const after = (await t.app.inject({ method: 'GET', url: '/metrics' })).body
    expect(misses(after) - misses(before)).toBe(n + 2)
  })
})
