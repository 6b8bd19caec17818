import { readFileSync, readdirSync } from 'node:fs'
import { getPriority } from 'node:os'
import type { Worker } from 'node:worker_threads'
import { sql } from 'drizzle-orm'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { boolean, integer, pgTable, text } from 'drizzle-orm/pg-core'
import { eq, or } from 'drizzle-orm'
import { createDb, keepPlanned, type DbHandle } from '../../src/db/client.js'
import { isDatabaseUnavailable, isUniqueViolation } from '../../src/http/errors.js'

/*
 * PGlite runs in a worker thread (src/db/pglite-worker.mjs, src/db/pglite-remote.ts): this event
 * loop keeps turning while it works, and drizzle sees the same results, errors and transactions as
 * with PGlite in process.
 */

const values = async (handle: DbHandle, table: string) =>
  (await handle.db.execute<{ x: number }>(sql.raw(`select x from ${table} order by x`))).rows.map((r) => r.x)

describe('PGlite in a worker thread', () => {
  let handle: DbHandle

  beforeAll(async () => {
    handle = await createDb({ kind: 'pglite' })
    await handle.db.execute(sql`create table items (x int constraint items_x_key unique)`)
  })
  afterAll(() => handle.close())

  it('a timer on this thread fires while a long statement runs in PGlite', async () => {
    const order: string[] = []
    const timer = new Promise<void>((resolve) => setTimeout(() => resolve(void order.push('timer')), 10))
    await handle.db.execute(sql`select pg_sleep(1)`)
    order.push('statement')
    await timer
    expect(order).toEqual(['timer', 'statement'])
  })

  it('a transaction that throws rolls back and rethrows the same error', async () => {
    const boom = new Error('boom')
    const run = handle.db.transaction(async (tx) => {
      await tx.execute(sql`insert into items values (1), (2)`)
      throw boom
    })
    await expect(run).rejects.toBe(boom)
    expect(await values(handle, 'items')).toEqual([])
  })

  it('a unique violation arrives with its code, constraint, table and detail', async () => {
    await handle.db.execute(sql`insert into items values (7)`)
    const err = await handle.db.execute(sql`insert into items values (7)`).catch((e: unknown) => e)
    expect(isUniqueViolation(err)).toBe(true)
    const cause = (err as { cause: Record<string, unknown> }).cause
    expect(cause).toBeInstanceOf(Error)
    expect(cause).toMatchObject({ code: '23505', constraint: 'items_x_key', table: 'items', detail: 'Key (x)=(7) already exists.' })
    expect(cause.params).toBeUndefined()
    // an error inside a transaction aborts it: the whole transaction rolls back
    await expect(handle.db.transaction((tx) => tx.execute(sql`insert into items values (8), (7)`))).rejects.toThrow()
    expect(await values(handle, 'items')).toEqual([7])
    await handle.db.execute(sql`delete from items`)
  })

  it('nested transactions are savepoints: an inner failure undoes only the inner part', async () => {
    await handle.db.transaction(async (tx) => {
      await tx.execute(sql`insert into items values (1)`)
      await expect(
        tx.transaction(async (inner) => {
          await inner.execute(sql`insert into items values (2)`)
          await inner.execute(sql`insert into items values (1)`)
        }),
      ).rejects.toThrow()
      await tx.transaction(async (inner) => {
        await inner.execute(sql`insert into items values (3)`)
      })
    })
    expect(await values(handle, 'items')).toEqual([1, 3])
    await handle.db.execute(sql`delete from items`)
  })

  it('a query outside an open transaction waits for its commit', async () => {
    const order: string[] = []
    let outside: Promise<number[]> | undefined
    await handle.db.transaction(async (tx) => {
      await tx.execute(sql`insert into items values (5)`)
      outside = values(handle, 'items').then((v) => (order.push('outside'), v))
      await tx.execute(sql`insert into items values (6)`)
      order.push('committing')
    })
    expect(await outside).toEqual([5, 6])
    expect(order).toEqual(['committing', 'outside'])
    await handle.db.execute(sql`delete from items`)
  })

  it('a statement kept planned is prepared once and run by EXECUTE, its values as literals (quotes and backslashes included)', async () => {
    const names = pgTable('names', { id: integer('id'), name: text('name'), flag: boolean('flag') })
    await handle.db.execute(sql`create table names (id int, name text, flag boolean)`)
    const odd = [`it's`, 'back\\slash', `'); drop table names; --`, `E'\\x'`, 'naïve ✓']
    await handle.db.insert(names).values([...odd.map((name, id) => ({ id, name, flag: id % 2 === 0 })), { id: 99, name: null, flag: null }])
    const find = handle.db.select().from(names).where(or(eq(names.name, sql.placeholder('name')), eq(names.id, sql.placeholder('id'))))
    keepPlanned(handle.db, find.toSQL())
    const run = find.prepare('')
    for (const [id, name] of odd.entries()) expect(await run.execute({ name, id: -1 })).toEqual([{ id, name, flag: id % 2 === 0 }])
    expect(await run.execute({ name: 'nobody', id: 99 })).toEqual([{ id: 99, name: null, flag: null }])
    const statements = (await handle.db.execute<{ statement: string; runs: number }>(sql`select statement, generic_plans + custom_plans as runs from pg_prepared_statements`)).rows
    expect(statements).toEqual([{ statement: expect.stringContaining('from "names"'), runs: odd.length + 1 }])
    expect(await handle.db.$count(names)).toBe(odd.length + 1)
  })

  it('an array value of a statement kept planned goes as an array literal, its elements as sent', async () => {
    const odd = [`it's`, 'back\\slash', 'quo"te', '{brace,comma}', 'NULL', '', 'naïve ✓']
    const pick = sql`select x from unnest(${sql.placeholder('xs')}::text[]) as x where x = any(${sql.placeholder('want')}::text[])`
    const run = handle.db.select({ x: sql<string>`picked.x` }).from(sql`(${pick}) picked`)
    keepPlanned(handle.db, run.toSQL())
    const q = run.prepare('')
    expect((await q.execute({ xs: odd, want: odd })).map((r) => r.x)).toEqual(odd)
    expect(await q.execute({ xs: odd, want: [] })).toEqual([])
    expect((await q.execute({ xs: [...odd, null], want: ['NULL'] })).map((r) => r.x)).toEqual(['NULL'])
    const runs = (await handle.db.execute<{ runs: number }>(sql`select generic_plans + custom_plans as runs from pg_prepared_statements where statement like '%unnest%'`)).rows
    expect(runs).toEqual([{ runs: 3 }])
  })

  it('raw results look as in-process PGlite made them: timestamps and dates as text, json parsed, affectedRows', async () => {
    const { rows } = await handle.db.execute(
      sql`select timestamptz '2024-05-06 07:08:09+00' as at, date '2024-05-06' as day, interval '1 hour' as span, '{"a":1}'::jsonb as j, 2::int8 as big, array[date '2024-05-06'] as days`,
    )
    expect(rows).toEqual([{ at: '2024-05-06 07:08:09+00', day: '2024-05-06', span: '01:00:00', j: { a: 1 }, big: 2, days: '{2024-05-06}' }])
    await handle.db.execute(sql`insert into items values (1), (2), (3)`)
    const deleted = await handle.db.execute(sql`delete from items where x > 1`)
    expect((deleted as unknown as { affectedRows: number }).affectedRows).toBe(2)
    await handle.db.execute(sql`delete from items`)
  })

  it('a value goes as text by its parameter type, as PGlite query() sends it, the first run of a text and the later ones alike', async () => {
    await handle.db.execute(sql`create table typed (j jsonb, t text, xs int[], at timestamptz, ok boolean, n int)`)
    const insert = (j: unknown, t: string, xs: number[], at: Date, ok: boolean) =>
      handle.db.execute(sql`insert into typed values (${sql.param(j)}, ${t}, ${sql.param(xs)}, ${at}, ${ok}, ${xs.length})`)
    const plainInsert = (t: unknown) => handle.db.execute(sql`insert into typed (j, t) values (${t}, ${t})`)
    for (const n of [1, 2]) {
      await insert({ a: [n, 'x'] }, '{"looks":"like json"}', [n, n + 1], new Date(Date.UTC(2024, 4, n)), n === 1)
      // a json parameter given an object is JSON; a text one given the same string stays that string
      await plainInsert('["text", 1]')
    }
    const rows = (await handle.db.execute(sql`select j, t, xs::text as xs, to_char(at at time zone 'UTC', 'YYYY-MM-DD') as day, ok, n from typed order by n nulls last, t`)).rows
    expect(rows).toEqual([
      { j: { a: [1, 'x'] }, t: '{"looks":"like json"}', xs: '{1,2}', day: '2024-05-01', ok: true, n: 2 },
      { j: { a: [2, 'x'] }, t: '{"looks":"like json"}', xs: '{2,3}', day: '2024-05-02', ok: false, n: 2 },
      { j: ['text', 1], t: '["text", 1]', xs: null, day: null, ok: null, n: null },
      { j: ['text', 1], t: '["text", 1]', xs: null, day: null, ok: null, n: null },
    ])
    // a failing statement names itself and leaves the next run of the same text working
    const bad = (n: string) => handle.db.execute(sql`select ${n}::int as n`)
    await expect(bad('x')).rejects.toMatchObject({ cause: expect.objectContaining({ code: '22P02', query: 'select $1::int as n' }) })
    expect((await bad('5')).rows).toEqual([{ n: 5 }])
    await expect(handle.db.execute(sql.raw('selec 1'))).rejects.toMatchObject({ cause: expect.objectContaining({ code: '42601' }) })
    await handle.db.execute(sql`drop table typed`)
  })
})

/** Nice values of this process's threads, by thread id (Linux: /proc/self/task/<tid>/stat, field 19). */
function threadNices(): Map<number, number> {
  const out = new Map<number, number>()
  for (const tid of readdirSync('/proc/self/task')) {
    const stat = readFileSync(`/proc/self/task/${tid}/stat`, 'utf8')
    out.set(Number(tid), Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[16]))
  }
  return out
}

describe.skipIf(process.platform !== 'linux')('PGlite worker priority', () => {
  it('the worker thread alone runs 10 nice steps below the event loop, so on a shared core the loop goes first', async () => {
    const mine = getPriority()
    const before = threadNices()
    const handle = await createDb({ kind: 'pglite' })
    try {
      const after = threadNices()
      const added = [...after].filter(([tid]) => !before.has(tid))
      expect(added.map(([, nice]) => nice)).toContain(Math.min(19, mine + 10))
      // the threads that were there keep their priority: the event loop's above all
      expect([...before.keys()].map((tid) => after.get(tid))).toEqual([...before.values()])
      expect(getPriority()).toBe(mine)
    } finally {
      await handle.close()
    }
  })
})

describe('PGlite worker lifecycle', () => {
  it('after close() every call fails as "PGlite is closed" (a database away) and ping is false', async () => {
    const handle = await createDb({ kind: 'pglite' })
    expect(await handle.ping()).toBe(true)
    await handle.close()
    expect(await handle.ping()).toBe(false)
    const err = await handle.db.execute(sql`select 1`).catch((e: unknown) => e)
    expect(isDatabaseUnavailable(err)).toBe(true)
    await handle.close() // twice is harmless
  })

  it('a worker that dies fails the pending call with a clear error, then every call, and reports itself lost', async () => {
    const handle = await createDb({ kind: 'pglite' })
    const pending = handle.db.execute(sql`select pg_sleep(5)`).catch((e: unknown) => e)
    // the thread ends without close(): what a crash of the WASM runtime looks like from here
    const worker = (handle.db as unknown as { $client: { worker: Worker } }).$client.worker
    await worker.terminate()
    const err = (await pending) as Error & { cause?: Error }
    expect((err.cause ?? err).message).toMatch(/^PGlite is closed: its worker thread stopped/)
    expect(isDatabaseUnavailable(err)).toBe(true)
    expect((await handle.lost)?.message).toMatch(/worker thread stopped/)
    expect(await handle.ping()).toBe(false)
    expect(isDatabaseUnavailable(await handle.db.execute(sql`select 1`).catch((e: unknown) => e))).toBe(true)
    await handle.close()
  })
})
