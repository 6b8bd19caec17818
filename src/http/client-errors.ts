import { STATUS_CODES } from 'node:http'
import type { Socket } from 'node:net'
import { isV1Path } from './errors.js'

/**
 * Requests Node's HTTP parser refuses before Fastify sees them (a raw non-ASCII byte in the path, a
 * control character in a header, a Content-Length that is not a number, headers over the size
 * limit, a request that arrives too slowly). Fastify's own answer is `{"error":"Bad Request",
 * "message":"Client Error"}`, whose `error` is not the contract's 1 and which says nothing to fix.
 * The request line, where the parser got that far, says whether it was the v1 interface.
 */
export function clientErrorHandler(err: Error & { code?: string; rawPacket?: unknown }, socket: Socket) {
  if (err.code === 'ECONNRESET' || socket.destroyed) return
  const [status, message] = problemOf(err.code)
  if (socket.writable) {
    // Node's type says an object; at run time it is the bytes the parser had when it gave up
    const line = Buffer.isBuffer(err.rawPacket) ? err.rawPacket.subarray(0, 512).toString('latin1').split('\r\n', 1)[0] : ''
    const path = /^[A-Z]+ (\S+)/.exec(line)?.[1] ?? ''
    const body = JSON.stringify(isV1Path(path) ? { error: 1, message, status } : { error: 1, message })
    socket.write(
      `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Type: application/json; charset=utf-8\r\n` +
        `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    )
  }
  socket.destroy()
}

function problemOf(code: string | undefined): [number, string] {
  switch (code) {
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return [408, 'The request took too long to arrive: send it again.']
    case 'HPE_HEADER_OVERFLOW':
      return [431, 'The request headers are too large: send fewer or shorter headers (cookies count too).']
    case 'HPE_INVALID_URL':
      return [400, 'The request line is malformed: percent-encode every character outside ASCII in the path and query (ü as %C3%BC).']
    case 'HPE_INVALID_HEADER_TOKEN':
      return [400, 'A request header holds a character HTTP does not allow in headers (a control character or a raw byte outside ASCII).']
    case 'HPE_INVALID_CONTENT_LENGTH':
    case 'HPE_UNEXPECTED_CONTENT_LENGTH':
      return [400, 'Content-Length must be one whole number of bytes, and not sent with Transfer-Encoding: chunked.']
    case 'HPE_INVALID_TRANSFER_ENCODING':
    case 'HPE_INVALID_CHUNK_SIZE':
      return [400, 'The chunked body is malformed: each chunk needs its size in hexadecimal.']
    case 'HPE_INVALID_METHOD':
      return [400, 'The request method is not one HTTP knows.']
    default:
      return [400, 'The request is not well-formed HTTP/1.1.']
  }
}
