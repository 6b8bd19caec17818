import type { FastifyReply } from 'fastify'

/** What this needs of the click pipeline (clicks/recorder.ts). */
interface SpoolWaits {
  spoolWaiting(): boolean
  afterSpool(answer: () => void): void
}

/**
 * A recorded visit's answer leaves once its click is in the spool (DECISIONS §10.7): at once when
 * nothing waits (HEAD, no spool), else after the event-loop turn's one spool write, and then this
 * returns undefined. A synchronous handler that returns nothing has Fastify wait for the send; an
 * async handler or a promise chain returns `reply` instead (Fastify waits through `reply.then`).
 */
export function answerWhenSpooled(clicks: SpoolWaits, reply: FastifyReply, send: () => FastifyReply): FastifyReply | undefined {
  if (!clicks.spoolWaiting()) return send()
  clicks.afterSpool(() => {
    try {
      send()
    } catch (err) {
      reply.send(err as Error)
    }
  })
  return undefined
}
