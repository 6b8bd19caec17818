/**
 * A background job: `run` after `firstMs`, then every `everyMs`, on unref'd timers (they never keep
 * the process alive), never two runs at once. The returned function stops it; a run under way is
 * told through `stopped()` and may end early. `run` reports its own failures.
 */
export function startPeriodic(run: (stopped: () => boolean) => Promise<void>, firstMs: number, everyMs: number): () => void {
  let running = false
  let stopped = false
  const isStopped = () => stopped
  const tick = async () => {
    if (running || stopped) return
    running = true
    try {
      await run(isStopped)
    } finally {
      running = false
    }
  }
  const first = setTimeout(tick, firstMs)
  first.unref()
  const every = setInterval(tick, everyMs)
  every.unref()
  return () => {
    stopped = true
    clearTimeout(first)
    clearInterval(every)
  }
}
