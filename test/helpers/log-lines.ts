import { Writable } from 'node:stream'

/** A `logStream` for buildApp that pushes each line the app writes onto `lines`, for the test to read. */
export function lineSink(lines: string[]): Writable {
  return new Writable({
    write(chunk, _enc, done) {
      lines.push(...String(chunk).split('\n').filter(Boolean))
      done()
    },
  })
}
