import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { eq } from 'drizzle-orm'
import { links } from '../../src/db/schema/index.js'
import { appWith, type TestApp, type TestUser } from '../helpers/app.js'
import { addLink, addV1Link, makePage, makePixel } from '../helpers/fixtures.js'
import { expectAgreement, type Visitor } from './dry-run-helpers.js'
import { UA } from './user-agents.js'

/*
 * Property: for generated links and visitors, the dry-run answers what the visit then gets (status
 * and Location, or the page and where it leads). A fixed seed keeps a failure reproducible; the
 * message of a failing expectation names the visitor and the dry-run's answer.
 */

const SEED = Number(process.env.DRY_RUN_SEED ?? 20261124)
const LINKS = 30
const VISITS_PER_LINK = 4

/** mulberry32: a small seeded PRNG. */
function prng(seed: number) {
  let a = seed >>> 0
  return () => {
    a = (a + 0x6d2b79f5) >>> 0
    let x = Math.imul(a ^ (a >>> 15), 1 | a)
    x = (x + Math.imul(x ^ (x >>> 7), 61 | x)) ^ x
    return ((x ^ (x >>> 14)) >>> 0) / 4294967296
  }
}

describe('dry-run property: it agrees with the visit', () => {
  let t: TestApp
  let alice: TestUser

  beforeAll(async () => { [t, alice] = await appWith({ plan: 'pro' }) })
  afterAll(() => t.close())

  it(`holds for ${LINKS} generated links x ${VISITS_PER_LINK} visitors (seed ${SEED})`, async () => {
    const rnd = prng(SEED)
    const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rnd() * xs.length)]
    const chance = (p: number) => rnd() < p
    const some = <T>(xs: readonly T[]) => xs.filter(() => chance(0.4))

    const splash = await makePage(t, alice.user.id, 'splash')
    const overlay = await makePage(t, alice.user.id, 'overlay')
    const pixel = await makePixel(t, alice.user.id)
    const agents = [UA.iPhone, UA.iPad, UA.android, UA.windows, UA.mac, UA.linux, UA.ubuntu, UA.chromeOS, UA.facebook, UA.googlebot, UA.curl]
    const languages = ['fr-FR,fr;q=0.9', 'de', 'en-US', 'es', 'pt-BR', '']
    const ips = ['2.2.2.2', '8.8.8.8', '81.2.69.142', '24.48.0.1', '127.0.0.1']
    const queries = ['', 'utm_source=x', 'a=1&b=two', 'q=%C3%A9t%C3%A9']
    let pages = 0

    for (let n = 0; n < LINKS; n++) {
      const alias = `prop-${SEED % 1000}-${n}`
      const url = `https://example.com/p/${n}?k=${n}`
      let id: number
      if (chance(0.15)) {
        // a rotation, made the v1 way (the management body has no rotation field)
        const form: Record<string, string> = { url, alias, target_type: '4' }
        const count = 1 + Math.floor(rnd() * 3)
        for (let i = 0; i < count; i++) form[`rotation[${i}][value]`] = `https://example.com/rot/${n}/${i}`
        id = await addV1Link(t, alice, form)
      } else {
        const body: Record<string, unknown> = { url, custom: alias }
        const devices = some(['iPhone', 'Android', 'Windows', 'Mac', 'Linux', 'Ubuntu'])
        if (devices.length) body.devicetarget = devices.map((d) => ({ device: d, link: `https://example.com/dev/${d}` }))
        const countries = some(['FR', 'US', 'GB', 'CA'])
        if (countries.length) body.geotarget = countries.map((c) => ({ location: c, link: `https://example.com/geo/${c}` }))
        const langs = some(['fr', 'de', 'en', 'es'])
        if (langs.length) body.languagetarget = langs.map((l) => ({ language: l, link: `https://example.com/lang/${l}` }))
        if (chance(0.3)) body.deeplink = { apple: chance(0.5) ? 'https://apps.apple.com/app/id9' : '', google: chance(0.5) ? 'https://play.google.com/store/apps/details?id=p' : '' }
        if (chance(0.3)) body.parameters = [{ name: 'utm_medium', value: pick(['qr', 'mail']) }]
        if (chance(0.3)) body.type = pick(['frame', 'splash', `splash-${splash.id}`, `overlay-${overlay.id}`])
        else if (chance(0.15)) body.pixels = [pixel.id]
        if (chance(0.3)) body.redirectstatus = pick([301, 302, 307, 308])
        if (chance(0.2)) body.cachettl = pick([0, 60, 86400])
        if (chance(0.2)) body.metatitle = 'Meta title'
        if (chance(0.1)) body.password = 'open sesame'
        if (chance(0.3)) body.fallback = `https://example.com/fallback/${n}`
        id = await addLink(alice, body)
      }
      const row: Partial<typeof links.$inferInsert> = {}
      if (chance(0.15)) row.healthState = 'broken'
      if (chance(0.1)) row.disabled = true
      if (chance(0.15)) Object.assign(row, { expirationClicks: 1 + Math.floor(rnd() * 2), expirationUrl: chance(0.5) ? `https://example.com/over/${n}` : null })
      if (Object.keys(row).length) {
        await t.app.db.update(links).set(row).where(eq(links.id, id))
        await t.app.linkCache.invalidate(id)
      }

      for (let v = 0; v < VISITS_PER_LINK; v++) {
        const visitor: Visitor = { useragent: pick(agents), ip: pick(ips) }
        const language = pick(languages)
        if (language) visitor.language = language
        const query = pick(queries)
        if (query) visitor.query = query
        const dry = await expectAgreement(t, alice, id, alias, visitor)
        if (dry.page !== 'direct') pages++
      }
    }
    // the generator reached more than plain redirects
    expect(pages).toBeGreaterThan(10)
  })
})
