import { createServer, type Server } from 'node:http'
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

/** Where a browser lands after a short link: a page saying "Arrived at <path>" (escaped), in an `h1#arrived`. */
export async function arrivalServer(): Promise<{ server: Server; origin: string }> {
  const server = createServer((req, res) => {
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' })
    res.end(`<!doctype html><title>Destination</title><h1 id="arrived">Arrived at ${(req.url ?? '').replace(/[<>&"]/g, (c) => `&#${c.charCodeAt(0)};`)}</h1>`)
  })
  return { server, origin: await listenLocally(server) }
}
