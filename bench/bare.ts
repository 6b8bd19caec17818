import Fastify from 'fastify'

// The yardstick of DECISIONS §9: a bare Fastify app answering every short path with a 302.
const app = Fastify()
app.get('/:alias', (_req, reply) => {
  reply.code(302).header('location', 'https://example.com/landing').send()
})
await app.listen({ port: Number(process.env.PORT ?? 0), host: '127.0.0.1' })
process.on('SIGTERM', () => void app.close().then(() => process.exit(0)))
