import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { appWith, type TestApp, type TestUser } from '../helpers/app.js'
import { addLink } from '../helpers/fixtures.js'

/*
 * Session 36: a term without letters (`%`, `_`, `\`, `50%`) is a LIKE instead of an ILIKE, which
 * costs a sixth as much a row. The answers must be the same: each character literal, any case of
 * the text, only the caller's links, through both interfaces and in every searched column.
 */

interface Fixture {
  custom: string
  url: string
  title?: string
  description?: string
}

const MINE: Fixture[] = [
  { custom: 'pct', url: 'https://shop.example/?discount=50%25' },
  { custom: 'under_score', url: 'https://shop.example/plain' },
  { custom: 'back', url: 'https://shop.example/b', title: 'C:\\Users\\me' },
  { custom: 'double', url: 'https://shop.example/d', description: '100%% sure' },
  { custom: 'mixed', url: 'https://shop.example/m', title: 'SALE_50% OFF' },
  { custom: 'Mixed-Lower', url: 'https://shop.example/ml', description: 'sale_50% off today' },
  { custom: 'none', url: 'https://shop.example/n', title: 'Nothing special here' },
  { custom: 'digits', url: 'https://shop.example/2024/report', title: 'Report 2024' },
]
// another account with a match for every term: none may ever show
const THEIRS: Fixture[] = [
  { custom: 'their_pct', url: 'https://other.example/?x=1%25', title: 'C:\\tmp 100%% SALE_50% 2024' },
  { custom: 'their-under', url: 'https://other.example/a_b', description: 'sale_50% \\ %%' },
]

/** What a literal, case-insensitive contains-search over these columns finds, computed here. */
function expected(term: string, columns: (keyof Fixture)[]) {
  const t = term.toLowerCase()
  return MINE.filter((f) => columns.some((c) => f[c]?.toLowerCase().includes(t)))
    .map((f) => f.custom)
    .sort()
}

describe('link search with wildcard characters', () => {
  let t: TestApp
  let me: TestUser
  let them: TestUser
  beforeAll(async () => {
    ;[t, me, them] = await appWith({ plan: 'pro' }, { plan: 'pro' })
    for (const f of MINE) await addLink(me, { ...f })
    for (const f of THEIRS) await addLink(them, { ...f })
  })
  afterAll(() => t.close())

  const urls = async (term: string) => {
    const res = await me.api.get(`/api/urls?limit=100&q=${encodeURIComponent(term)}`)
    expect(res.statusCode).toBe(200)
    const data = res.json().data
    expect(data.result ?? data.total).toBe(data.urls.length)
    return data.urls.map((u: { alias: string }) => u.alias).sort()
  }
  const v1 = async (term: string, by = 'any') => {
    const res = await me.api.get(`/api/v1/links?per_page=100&by=${by}&search=${encodeURIComponent(term)}`)
    expect(res.statusCode).toBe(200)
    return res.json().data.map((l: { alias: string }) => l.alias).sort()
  }

  const TERMS = ['%', '_', '\\', '%%', '50%', '_50%', 'Sale_50%', 'SALE_50% off', '2024', ':\\u']

  it.each(TERMS)('/api/urls?q=%s finds exactly the links holding it, in any case, and only the caller’s', async (term) => {
    const want = expected(term, ['custom', 'url', 'title', 'description'])
    expect(await urls(term)).toEqual(want)
  })

  it.each(TERMS)('/api/v1/links?search=%s&by=any finds the same over alias, URL and title', async (term) => {
    expect(await v1(term)).toEqual(expected(term, ['custom', 'url', 'title']))
  })

  it('finds in each column on its own, and a wildcard is never a wildcard', async () => {
    expect(await v1('_', 'alias')).toEqual(['under_score'])
    expect(await v1('%', 'url')).toEqual(['pct'])
    expect(await v1('\\', 'title')).toEqual(['back'])
    expect(await urls('%%')).toEqual(['double'])
    // `_` matches no other single character, `%` no run of them
    expect(await urls('sale_50')).toEqual(['Mixed-Lower', 'mixed'].sort())
    expect(await urls('sale-50')).toEqual([])
    expect(await urls('100%%%')).toEqual([])
  })

  it('the expected sets are not empty (the fixtures hold each term)', () => {
    expect(expected('%', ['custom', 'url', 'title', 'description'])).toEqual(['Mixed-Lower', 'double', 'mixed', 'pct'])
    for (const term of TERMS) expect(expected(term, ['custom', 'url', 'title', 'description']).length, term).toBeGreaterThan(0)
  })
})
