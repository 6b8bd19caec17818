import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { sql } from 'drizzle-orm'
import { rowsOf } from '../../src/db/client.js'
import { testApp, type TestApp } from '../helpers/app.js'
import { insertLink } from '../helpers/fixtures.js'
import { counters, expectRedirect, visit } from '../helpers/visits.js'
import { eventually } from '../helpers/wait.js'

const backendPid = async (t: TestApp) => rowsOf<{ pid: number }>(await t.handle.writer.execute(sql`select pg_backend_pid() as pid`))[0].pid

/**
 * On Postgres the click writer has its own connection (db/client.ts `writer`): its batches never
 * wait for a slot of the pool that API queries and cache misses share, and they all run on one
 * backend, which has its plans of write_click_batch() made.
 */
describe.skipIf(!process.env.TEST_DATABASE_URL)("the click writer's own Postgres connection", () => {
  let t: TestApp
  beforeAll(async () => {
    t = await testApp()
  })
  afterAll(() => t.close())

  it('writes a batch while every connection of the shared pool is held', async () => {
    const { user } = await t.makeUser()
    const link = await insertLink(t, user.id, { alias: 'writer1', url: 'https://example.com/writer' })
    expectRedirect(await visit(t, '/writer1'), 302, 'https://example.com/writer')

    // ten transactions: the shared pool's every connection (max 10), held until `release`
    let release!: () => void
    const gate = new Promise<void>((r) => (release = r))
    const held: Promise<void>[] = []
    let holding = 0
    for (let i = 0; i < 10; i++) {
      held.push(
        t.app.db.transaction(async (tx) => {
          await tx.execute(sql`select 1`)
          holding++
          await gate
        }),
      )
    }
    try {
      await eventually(() => holding === 10, 'all ten shared connections held')
      const writerPid = await backendPid(t)
      // through the shared pool this flush would wait for a connection, then fail after 5 s
      await t.app.clicks.flush()
      expect(t.app.clicks.stats()).toMatchObject({ written: 1, buffered: 0, failures: 0 })
      // the same backend each time: nothing re-plans the batch function
      expect(await backendPid(t)).toBe(writerPid)
    } finally {
      release()
      await Promise.all(held)
    }
    expect((await counters(t, link.id)).clicks).toBe(1)
  })
})
