import type { FastifyPluginAsync } from 'fastify'

// The short-link handler (GET /:alias and friends) is added by the links issue.
const redirect: FastifyPluginAsync = async () => {}
export default redirect
