import type { TickPlanner, TickLabel } from '../ui/Chart'
import { parseApiDate } from '../ui/format'

/**
 * The time axis of the stats chart. Daily buckets are UTC days (the API's unit), so they are named
 * as UTC dates; hourly buckets are instants, so they are named in the viewer's own time, like every
 * other time on the dashboard. Tick labels are spaced so they never overlap at any width, and carry
 * the date on a day change and the year on a year change (a year's range spans two).
 */

const utcDay = new Intl.DateTimeFormat(undefined, { month: 'short', day: 'numeric', timeZone: 'UTC' })
const utcMonth = new Intl.DateTimeFormat(undefined, { month: 'short', timeZone: 'UTC' })
const localDay = new Intl.DateTimeFormat(undefined, { month: 'short', day: 'numeric' })
const localHour = new Intl.DateTimeFormat(undefined, { hour: 'numeric' })
const localHourMinute = new Intl.DateTimeFormat(undefined, { hour: 'numeric', minute: '2-digit' })
/** "9 PM"; "9:30 PM" where the viewer's zone is a half hour off UTC */
const hourText = (d: Date) => (d.getMinutes() ? localHourMinute : localHour).format(d)
const dayTitle = new Intl.DateTimeFormat(undefined, { weekday: 'short', month: 'short', day: 'numeric', year: 'numeric', timeZone: 'UTC' })
const hourTitle = new Intl.DateTimeFormat(undefined, { weekday: 'short', month: 'short', day: 'numeric', hour: 'numeric', minute: '2-digit', timeZoneName: 'short' })

/** "Mar 9, 2026, 10:00 PM EDT": an hour's start in the viewer's time, with its zone. */
export const readHour = (d: Date) => `${fullHour.format(d)} ${zone.formatToParts(d).find((p) => p.type === 'timeZoneName')?.value ?? ''}`.trim()
// dateStyle does not combine with timeZoneName: the zone is read apart
const fullHour = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' })
const zone = new Intl.DateTimeFormat(undefined, { timeZoneName: 'short' })

const HOUR_STEPS = [1, 2, 3, 4, 6, 12, 24, 48, 72, 168]
const DAY_STEPS = [1, 2, 7, 14]
const MONTH_STEPS = [1, 2, 3, 6, 12]
/** room between two labels, in pixels */
const GAP = 14

const localDate = (d: Date) => `${d.getFullYear()}-${d.getMonth()}-${d.getDate()}`

/** The chart's tooltip titles and tick planner for the series' bucket dates. */
export function timeAxis(dates: string[], interval: 'day' | 'hour'): { labels: string[]; ticks: TickPlanner } {
  const at = dates.map((v) => parseApiDate(v) ?? new Date(NaN))
  const labels = at.map((d, i) => (Number.isNaN(d.getTime()) ? dates[i] : (interval === 'hour' ? hourTitle : dayTitle).format(d)))
  return { labels, ticks: (width, measure) => plan(interval === 'hour' ? hourCandidates(at) : dayCandidates(at), at.length, width, measure) }
}

/** Each step's ticks, densest first: the indices labelled and their text. */
type Candidates = Map<number, TickLabel>[]

function hourCandidates(at: Date[]): Candidates {
  return HOUR_STEPS.map((step) => {
    const out = new Map<number, TickLabel>()
    let lastDay = ''
    let midnights = 0
    at.forEach((d, i) => {
      const h = d.getHours()
      const whole = step <= 24 ? h % step === 0 : h === 0 && midnights++ % (step / 24) === 0
      if (!whole) return
      const day = localDate(d)
      // the time alone; the date under it where the day changes (or a whole day per tick: the date alone)
      out.set(i, step >= 24 ? localDay.format(d) : day !== lastDay ? [hourText(d), localDay.format(d)] : hourText(d))
      lastDay = day
    })
    return out
  })
}

function dayCandidates(at: Date[]): Candidates {
  const withYear = (picked: Map<number, Date>, text: (d: Date) => string) => {
    const out = new Map<number, TickLabel>()
    let lastYear = -1
    for (const [i, d] of picked) {
      const y = d.getUTCFullYear()
      out.set(i, y !== lastYear ? [text(d), String(y)] : text(d))
      lastYear = y
    }
    return out
  }
  const byDay = DAY_STEPS.map((step) => withYear(new Map(at.flatMap((d, i) => (i % step === 0 ? [[i, d] as const] : []))), (d) => utcDay.format(d)))
  const firsts = at.flatMap((d, i) => (d.getUTCDate() === 1 ? [[i, d] as const] : []))
  const byMonth = MONTH_STEPS.map((step) => withYear(new Map(firsts.filter(([, d]) => d.getUTCMonth() % step === 0)), (d) => utcMonth.format(d)))
  return [...byDay, ...byMonth]
}

/** The densest candidate whose labels, centred on their points, keep GAP pixels apart. */
function plan(candidates: Candidates, count: number, width: number, measure: (text: string) => number): (TickLabel | null)[] {
  const x = (i: number) => (count > 1 ? (i / (count - 1)) * width : width / 2)
  const wide = (label: TickLabel) => Math.max(...(Array.isArray(label) ? label : [label]).map(measure))
  const fits = (ticks: Map<number, TickLabel>) => {
    let prev: { x: number; half: number } | undefined
    for (const [i, label] of ticks) {
      const half = wide(label) / 2
      if (prev && x(i) - half < prev.x + prev.half + GAP) return false
      prev = { x: x(i), half }
    }
    return true
  }
  const chosen = candidates.find((c) => c.size > 0 && fits(c)) ?? candidates.findLast((c) => c.size > 0) ?? new Map()
  return Array.from({ length: count }, (_, i) => chosen.get(i) ?? null)
}
