/**
 * Data a figure needs, written straight into the database while its server is stopped: a hundred
 * thousand links through the API would take longer than the figure they are for.
 */
import pg from 'pg'
import { sql } from 'drizzle-orm'
import { createDb } from '../src/db/client.js'
import { ADMIN_EMAIL } from './lib.js'
import type { Backend } from './servers.js'

/** Runs `fn` with a query function on the backend's database (PGlite: the server must be stopped). */
export async function withDb<T>(b: Backend, fn: (q: (text: string) => Promise<Record<string, unknown>[]>) => Promise<T>): Promise<T> {
  if (b.pgUrl) {
    const c = new pg.Client({ connectionString: b.pgUrl })
    await c.connect()
    try {
      return await fn(async (text) => (await c.query(text)).rows)
    } finally {
      await c.end()
    }
  }
  const handle = await createDb({ kind: 'pglite', dir: b.dataDir })
  try {
    return await fn(async (text) => ((await handle.db.execute(sql.raw(text))) as unknown as { rows: Record<string, unknown>[] }).rows)
  } finally {
    await handle.close()
  }
}

/** `n` links of the bench's admin, aliases `<prefix>0` … `<prefix>{n-1}`, in one statement. */
export async function seedLinks(b: Backend, prefix: string, n: number): Promise<void> {
  if (!/^[a-z0-9-]+$/.test(prefix)) throw new Error(`bad prefix ${prefix}`)
  await withDb(b, async (q) => {
    const [user] = await q(`select id from users where lower(email) = '${ADMIN_EMAIL}'`)
    if (!user) throw new Error(`${b.label}: no user ${ADMIN_EMAIL} (start the server once first)`)
    await q(
      `insert into links (user_id, alias, custom_alias, url)
       select ${Number(user.id)}, '${prefix}' || g, true, 'https://example.com/p/' || g from generate_series(0, ${n - 1}) g`,
    )
    await q('analyze links')
  })
}

/** Clicks stored for the links whose alias starts with `prefix`: rows, and the links' counters. */
export async function storedClicks(b: Backend, prefix: string): Promise<{ rows: number; counter: number }> {
  return withDb(b, async (q) => {
    const [r] = await q(`select count(*)::int as n from clicks c join links l on l.id = c.link_id where l.alias like '${prefix}%'`)
    const [c] = await q(`select coalesce(sum(clicks), 0)::int as n from links where alias like '${prefix}%'`)
    return { rows: Number(r.n), counter: Number(c.n) }
  })
}

/** Seeds a link with `n` clicks over a year and the rollups and totals the flush would have written for them. */
export async function seedClicks(url: string, linkId: number, n: number) {
  const c = new pg.Client({ connectionString: url })
  await c.connect()
  try {
    // One transaction: the server's retention purge (a minute after start, then daily) can neither
    // see the clicks before their rollups are built nor delete them in between. The year of detail
    // outlives the default plan's 90 days, so the bench database's plans keep clicks for ever:
    // otherwise the purge deletes three quarters of them in the middle of the timed rows.
    await c.query('begin')
    await c.query('update plans set retention_days = 0')
    await c.query(
      `insert into clicks (link_id, source, created_at, country, referrer, browser, os, device, language, bot, visitor_hash)
       select $1, 'link', now() - ((g % 365) || ' days')::interval - ((g % 86400) || ' seconds')::interval,
         (array['US','GB','DE','FR','IN','BR','JP','CA','AU','ES','IT','NL','SE','PL','MX'])[1 + g % 15],
         (array[null,'facebook.com','t.co','google.com','news.ycombinator.com','reddit.com','linkedin.com','x.com','l.facebook.com'])[1 + g % 9],
         (array['Chrome','Mobile Safari','Firefox','Edge','Safari','Samsung Browser'])[1 + g % 6],
         (array['Windows','iOS','Android','Mac OS','Linux'])[1 + g % 5],
         (array[null,'mobile','tablet'])[1 + g % 3], 'en', false, md5(g::text)
       from generate_series(1, $2::int) g`,
      [linkId, n],
    )
    const subject = `l${linkId}`
    const dims: [string, string][] = [
      ['country', `coalesce(country, '')`],
      ['referrer', `coalesce(referrer, '')`],
      ['browser', `coalesce(browser, '')`],
      ['os', `coalesce(os, '')`],
      ['device', `coalesce(device, '')`],
      ['language', `coalesce(language, '')`],
      ['total', `''`],
      ['unique', `''`],
      [
        'social',
        `case when referrer in ('facebook.com','l.facebook.com','m.facebook.com','fb.me') then 'facebook'
              when referrer in ('t.co','x.com','twitter.com') then 'twitter'
              when referrer like 'google.%' then 'google' end`,
      ],
    ]
    for (const [dim, expr] of dims) {
      await c.query(
        `insert into click_rollups (subject, link_id, day, dimension, label, count)
         select $1, $2, created_at::date, $3, label, count(*) from (select created_at, ${expr} as label from clicks where link_id = $2) x
         where label is not null group by created_at::date, label`,
        [subject, linkId, dim],
      )
    }
    await c.query(
      `insert into click_totals (subject, link_id, dimension, label, count)
       select subject, link_id, dimension, label, sum(count) from click_rollups
       where subject = $1 and day <= (select day from click_totals_through) group by subject, link_id, dimension, label`,
      [subject],
    )
    await c.query(
      `insert into click_hourly (subject, link_id, hour, clicks, unique_clicks, bot_clicks)
       select $1, $2, date_trunc('hour', created_at), count(*), count(distinct visitor_hash), 0 from clicks where link_id = $2 group by 3`,
      [subject, linkId],
    )
    await c.query(`update links set clicks = clicks + $2, unique_clicks = unique_clicks + $2 where id = $1`, [linkId, n])
    await c.query('commit')
    // a bulk load is vacuumed as well as analysed, so autovacuum does not do it during the measurement
    await c.query('vacuum (analyze) clicks, click_rollups, click_totals, click_hourly')
  } finally {
    await c.end()
  }
}
