import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { appWith, expectError, type TestApp, type TestUser } from '../helpers/app.js'

const PNG_1PX = 'data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg=='

describe('GET /api/qr/:id/design (extension): what a QR code was made from, for the editor', () => {
  let t: TestApp
  let a: TestUser
  let b: TestUser
  beforeAll(async () => { [t, a, b] = await appWith({}, {}) })
  afterAll(() => t.close())

  async function create(body: Record<string, unknown>): Promise<number> {
    const res = await a.api.post('/api/qr/add', body)
    expect(res.statusCode, res.body).toBe(200)
    return res.json().id
  }

  it('returns the type, the data as sent, the colours, the name and whether there is a logo', async () => {
    const wifi = { ssid: 'Cafe', password: 'espresso', encryption: 'WPA', hidden: false }
    const id = await create({ type: 'wifi', data: wifi, foreground: 'rgb(20,30,40)', background: 'rgb(250,250,240)', name: 'Cafe wifi' })
    const res = await a.api.get(`/api/qr/${id}/design`)
    expect(res.statusCode).toBe(200)
    expect(res.json()).toEqual({
      error: 0,
      // the data as stored: a false `hidden` is left out, as the image leaves it out
      data: { type: 'wifi', data: { ssid: 'Cafe', password: 'espresso', encryption: 'WPA' }, foreground: 'rgb(20,30,40)', background: 'rgb(250,250,240)', logo: false, name: 'Cafe wifi' },
    })
  })

  it('follows an update, and says a logo is there without sending it', async () => {
    const id = await create({ type: 'link', data: 'https://example.com/menu' })
    const put = await a.api.put(`/api/qr/${id}/update`, { type: 'text', data: 'Opening hours: 9 to 5', logo: PNG_1PX })
    expect(put.statusCode, put.body).toBe(200)
    const res = await a.api.get(`/api/qr/${id}/design`)
    expect(res.json().data).toMatchObject({ type: 'text', data: 'Opening hours: 9 to 5', foreground: 'rgb(0,0,0)', background: 'rgb(255,255,255)', logo: true })
    expect(res.body).not.toContain('base64')
  })

  it("is another account's 404, and an unknown id's", async () => {
    const id = await create({ type: 'text', data: 'private' })
    expectError(await b.api.get(`/api/qr/${id}/design`), 404, /QR code not found/)
    expectError(await a.api.get('/api/qr/999999/design'), 404, /QR code not found/)
  })
})
