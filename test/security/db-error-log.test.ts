import { sql } from 'drizzle-orm'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { FastifyInstance } from 'fastify'
import { buildApp } from '../../src/app.js'
import { createUser } from '../../src/resources/admin/users.js'
import { testConfig, testDatabase } from '../helpers/app.js'
import { lineSink } from '../helpers/log-lines.js'

/*
 * Issue 13 item 8: a failing write logged its whole statement with every parameter (URLs,
 * descriptions, password hashes). The log names the statement and the driver's code instead.
 * The failure is real: a trigger of the test's own refuses every new link.
 */

const SECRET_URL = 'https://example.com/private-destination-4f7a'
const SECRET_TEXT = 'confidential description 9c2e'
const SECRET_PASSWORD = 'link password b81d'

describe('a write that fails', () => {
  let app: FastifyInstance
  let drop: () => Promise<void>
  let key: string
  const lines: string[] = []

  beforeAll(async () => {
    const database = await testDatabase()
    drop = database.drop
    const logStream = lineSink(lines)
    app = await buildApp(testConfig({ LOG_LEVEL: 'info' }), { db: database.handle, logStream })
    await app.ready()
    key = (await createUser(app.db, app.keys, { email: 'dberr@example.com', username: 'dberr', password: 'pw-dberr', admin: true })).apiKey
    await app.db.execute(sql.raw(`create function refuse_links() returns trigger language plpgsql as $$ begin raise exception 'no space left on device' using errcode = '53100'; end $$`))
    await app.db.execute(sql.raw(`create trigger refuse_links before insert on links for each row execute function refuse_links()`))
  })
  afterAll(async () => {
    await app.close()
    await drop()
  })

  it('answers 500 and logs the statement name and error code, never the values written', async () => {
    const res = await app.inject({
      method: 'POST',
      url: '/api/url/add',
      headers: { authorization: `Bearer ${key}` },
      payload: { url: SECRET_URL, description: SECRET_TEXT, password: SECRET_PASSWORD, custom: 'dberr1' },
    })
    expect(res.statusCode).toBe(500)
    const text = lines.join('\n')
    const logged = lines.map((l) => JSON.parse(l)).find((l) => l.level === 50 && l.err)
    expect(logged?.err).toMatchObject({ statement: 'insert links', message: 'Failed query: insert links', cause: { code: '53100' } })
    for (const secret of [SECRET_URL, 'private-destination', SECRET_TEXT, SECRET_PASSWORD, '$argon2id$', 'dberr1', 'params:']) {
      expect(text).not.toContain(secret)
    }
  })
})
