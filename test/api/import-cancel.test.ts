import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { count, eq } from 'drizzle-orm'
import { links } from '../../src/db/schema/index.js'
import { testApp, type TestApp, type TestUser } from '../helpers/app.js'
import { listen } from '../helpers/fixtures.js'

const ROWS = 6_000
const CHUNK = 200 // transfer/import.ts: one transaction per chunk

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

/** POST /api/urls/import over a real socket, which the client closes mid-import (the dashboard's Cancel). */
describe('an import whose client goes away', { timeout: 180_000 }, () => {
  let t: TestApp
  let u: TestUser
  let origin: string
  beforeAll(async () => {
    // no create limit: every row of the file may be written
    t = await testApp({ CREATE_LIMIT_PER_HOUR: '0' })
    u = await t.makeUser({ maxLinks: 0 }) // no links cap either
    origin = await listen(t.app)
  })
  afterAll(() => t.close())

  const written = async () => (await t.app.db.select({ n: count() }).from(links).where(eq(links.userId, u.user.id)))[0].n

  it('stops after the chunk being written; the chunks already written stay whole', async () => {
    const csv = ['url,alias', ...Array.from({ length: ROWS }, (_, i) => `https://example.com/page/${i},cancel-${i}`)].join('\n')
    const abort = new AbortController()
    const sent = fetch(`${origin}/api/urls/import?format=csv`, {
      method: 'POST',
      headers: { authorization: `Bearer ${u.key}`, 'content-type': 'text/csv' },
      body: csv,
      signal: abort.signal,
    }).then(
      () => 'answered',
      () => 'aborted',
    )
    // cancel once the first chunk is in
    for (let waited = 0; (await written()) === 0; waited += 10) {
      if (waited > 120_000) throw new Error('the import wrote nothing in 120 s')
      await sleep(10)
    }
    abort.abort()
    expect(await sent).toBe('aborted')
    // the server notices and stops: the count stops growing well short of the file
    let before = -1
    let now = await written()
    while (now !== before) {
      before = now
      await sleep(1_000)
      now = await written()
    }
    expect(now).toBeGreaterThan(0)
    expect(now).toBeLessThan(ROWS / 2)
    expect(now % CHUNK).toBe(0)
  })
})
