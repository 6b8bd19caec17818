import type { FastifyPluginAsync } from 'fastify'

// Routes of this resource are added by its issue; no route answers until then.
const plugin: FastifyPluginAsync = async () => {}
export default plugin
