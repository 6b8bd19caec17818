/**
 * CPU and memory from the kernel's own accounting (/proc): what a process and its children spent,
 * and what the Postgres backends serving one database spent, whatever the load generator saw.
 */
import { readdirSync, readFileSync } from 'node:fs'
import { execFileSync } from 'node:child_process'

const TICKS_PER_SECOND = (() => {
  try {
    return Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100
  } catch {
    return 100
  }
})()

interface Stat {
  ppid: number
  /** utime + stime, in seconds */
  cpu: number
}

function stat(pid: number): Stat | null {
  try {
    const text = readFileSync(`/proc/${pid}/stat`, 'utf8')
    // the command name may hold spaces and parentheses: fields start after the last ')'
    const f = text.slice(text.lastIndexOf(')') + 2).split(' ')
    return { ppid: Number(f[1]), cpu: (Number(f[11]) + Number(f[12])) / TICKS_PER_SECOND }
  } catch {
    return null
  }
}

const pids = () => readdirSync('/proc').filter((d) => /^\d+$/.test(d)).map(Number)

/** A process and its descendants (a database worker process would be one of them). */
function tree(root: number): number[] {
  const children = new Map<number, number[]>()
  for (const pid of pids()) {
    const s = stat(pid)
    if (s) children.set(s.ppid, [...(children.get(s.ppid) ?? []), pid])
  }
  const out: number[] = []
  const todo = [root]
  while (todo.length) {
    const p = todo.pop()!
    out.push(p)
    todo.push(...(children.get(p) ?? []))
  }
  return out
}

/** CPU seconds spent so far by a process (all its threads) and its descendants. */
export function treeCpu(pid: number): number {
  return tree(pid).reduce((sum, p) => sum + (stat(p)?.cpu ?? 0), 0)
}

/** Each core's time so far from /proc/stat, in ticks: user, nice, system, idle, iowait, irq, softirq, steal. */
export function coreTimes(): number[][] {
  const out: number[][] = []
  for (const line of readFileSync('/proc/stat', 'utf8').split('\n')) {
    const m = /^cpu\d+ (.*)$/.exec(line)
    if (m) out.push(m[1].split(' ').slice(0, 8).map(Number))
  }
  return out
}

/**
 * What each core did between two readings, for the log: busy (all but idle, iowait and steal) and
 * the part of it spent in softirq, which on loopback is where one process's send does the
 * receiving side's TCP work; steal (the hypervisor running someone else) when there was any.
 */
export function coreShares(before: number[][], after: number[][]): string {
  return after
    .map((t, core) => {
      const d = t.map((v, i) => v - (before[core]?.[i] ?? 0))
      const total = d.reduce((a, b) => a + b, 0) || 1
      const pct = (v: number) => `${Math.round((v / total) * 100)}%`
      const steal = d[7] ?? 0
      return `core ${core} busy ${pct(total - d[3] - d[4] - steal)} (softirq ${pct(d[6])}${steal ? `, steal ${pct(steal)}` : ''})`
    })
    .join(', ')
}

/** Resident memory of a process and its descendants, in MB. */
export function treeRssMb(pid: number): number {
  let kb = 0
  for (const p of tree(pid)) {
    try {
      kb += Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${p}/status`, 'utf8'))?.[1] ?? 0)
    } catch {
      /* exited meanwhile */
    }
  }
  return kb / 1024
}

/**
 * CPU of the Postgres backends connected to one database, sampled while a measurement runs: a
 * backend that exits takes its time with it, so each is read every few hundred milliseconds and its
 * last reading kept. Backends are found by their process title ("postgres: … <user> <db> <addr> …"),
 * so other databases on the same server (tests running beside the bench) are not counted; neither
 * are the server-wide processes (WAL writer, checkpointer), which no one database owns.
 */
export class BackendSampler {
  private readonly start = new Map<number, number>()
  private readonly last = new Map<number, number>()
  private timer: NodeJS.Timeout | null = null

  constructor(private readonly dbName: string) {}

  /** pids of autovacuum workers seen on the database: their share is reported apart */
  private readonly vacuum = new Set<number>()

  private backends(): number[] {
    const out: number[] = []
    for (const pid of pids()) {
      try {
        const title = readFileSync(`/proc/${pid}/cmdline`, 'utf8').replace(/\0/g, ' ')
        if (title.startsWith('postgres:') && title.split(/\s+/).includes(this.dbName)) {
          out.push(pid)
          // the title carries the cluster's name when it has one: "postgres: 15/main: autovacuum worker kurz_bench_…"
          if (/^postgres: (?:\S+: )?autovacuum worker /.test(title)) this.vacuum.add(pid)
        }
      } catch {
        /* exited meanwhile */
      }
    }
    return out
  }

  private sample(first: boolean) {
    for (const pid of this.backends()) {
      const s = stat(pid)
      if (!s) continue
      // a backend that appears during the run started from nothing
      if (!this.start.has(pid)) this.start.set(pid, first ? s.cpu : 0)
      this.last.set(pid, s.cpu)
    }
  }

  begin() {
    this.sample(true)
    this.timer = setInterval(() => this.sample(false), 200)
  }

  /** CPU seconds the database's backends spent since begin(), and the autovacuum workers' part of it. */
  end(): { total: number; autovacuum: number } {
    if (this.timer) clearInterval(this.timer)
    this.sample(false)
    let total = 0
    let autovacuum = 0
    for (const [pid, cpu] of this.last) {
      const spent = cpu - (this.start.get(pid) ?? 0)
      total += spent
      if (this.vacuum.has(pid)) autovacuum += spent
    }
    return { total, autovacuum }
  }
}
