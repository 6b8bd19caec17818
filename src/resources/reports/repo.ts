import { count, desc, eq, sql } from 'drizzle-orm'
import type { Db } from '../../db/client.js'
import { linkReports, links } from '../../db/schema/index.js'
import { offsetOf, type PageQuery, withTotal } from '../../http/pagination.js'

export type LinkReport = typeof linkReports.$inferSelect
/** A report, whether its link is quarantined now and where it leads (null once the link is gone). */
export type ListedReport = { report: LinkReport; quarantined: boolean | null; url: string | null }

type NewReport = { linkId: number; shortUrl: string; reason: string; comment: string | null; email: string | null }

/**
 * Stores the report unless its link already has `cap` waiting (a dismissed report is deleted):
 * false when it had. Two inserts at once may both pass at `cap - 1` on Postgres; the per-minute cap
 * of public.ts bounds what that overshoot can add.
 */
export async function insertReport(db: Db, v: NewReport, cap: number): Promise<boolean> {
  const res = await db.execute(sql`insert into ${linkReports} (link_id, short_url, reason, comment, email)
    select ${v.linkId}, ${v.shortUrl}, ${v.reason}, ${v.comment}, ${v.email}
    where (select count(*) from (select 1 from ${linkReports} where ${linkReports.linkId} = ${v.linkId} limit ${cap}) held) < ${cap}
    returning id`)
  return res.rows.length > 0
}

/** Deletes one report; false when there is none with that id. */
export async function deleteReport(db: Db, id: number): Promise<boolean> {
  return (await db.delete(linkReports).where(eq(linkReports.id, id)).returning({ id: linkReports.id })).length > 0
}

export async function listReports(db: Db, q: PageQuery & { link?: number }) {
  const where = q.link !== undefined ? eq(linkReports.linkId, q.link) : undefined
  return withTotal(
    q,
    db
      .select({ report: linkReports, quarantined: links.quarantined, url: links.url })
      .from(linkReports)
      .leftJoin(links, eq(links.id, linkReports.linkId))
      .where(where)
      .orderBy(desc(linkReports.createdAt), desc(linkReports.id))
      .limit(q.limit)
      .offset(offsetOf(q)),
    db.select({ total: count() }).from(linkReports).where(where),
  )
}
