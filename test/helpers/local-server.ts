import type { Server } from 'node:http'
import type { AddressInfo } from 'node:net'

/* A plain HTTP server of the test's own on loopback: what the service fetches, or where a browser lands. */

/** Listens on a free loopback port; returns the origin. */
export async function listenLocally(server: Server): Promise<string> {
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`
}

/** Closes it without waiting for kept-alive or deliberately stalled connections. */
export async function closeServer(server: Server): Promise<void> {
  server.closeAllConnections()
  await new Promise((r) => server.close(r))
}
