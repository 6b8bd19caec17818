/** Thrown when a limiter's queue is full: the caller answers 503 with Retry-After. */
export class BusyError extends Error {
  constructor() {
    super('Too many requests are being checked at once. Try again in a moment.')
  }
}

/**
 * At most `concurrency` tasks at a time, at most `queueMax` more waiting; past that `run` throws
 * BusyError at once instead of growing a queue nobody will wait for.
 */
export class Limiter {
  private running = 0
  private readonly waiting: (() => void)[] = []

  constructor(
    readonly concurrency: number,
    readonly queueMax: number,
  ) {}

  async run<T>(task: () => Promise<T>): Promise<T> {
    if (this.running >= this.concurrency) {
      if (this.waiting.length >= this.queueMax) throw new BusyError()
      await new Promise<void>((resolve) => this.waiting.push(resolve))
    } else {
      this.running++
    }
    try {
      return await task()
    } finally {
      // hand the slot straight to the next waiter, so `running` never drops below what runs
      const next = this.waiting.shift()
      if (next) next()
      else this.running--
    }
  }
}
