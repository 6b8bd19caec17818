import { describe, expect, it } from 'vitest'
import { destination, isExpired, resolve, type ResolvableLink, type VisitContext } from '../../src/redirect/resolve.js'
import { safeUrl, withParameters } from '../../src/visit/url.js'

const NOW = Date.UTC(2030, 0, 15, 12, 0, 0)

function link(over: Partial<ResolvableLink> = {}): ResolvableLink {
  return {
    url: 'https://example.com/landing',
    type: 'direct',
    disabled: false,
    passwordHash: null,
    expiresAt: null,
    expirationUrl: null,
    expirationClicks: null,
    metaTitle: null,
    metaDescription: null,
    metaImage: null,
    deepLink: null,
    parameters: [],
    targets: { device: [], geo: [], language: [], rotation: [] },
    lastRotation: 0,
    ...over,
  }
}

function ctx(over: Partial<VisitContext> = {}): VisitContext {
  return { device: null, country: null, language: null, isCrawler: false, query: '', unlocked: false, clicks: 0, ...over }
}

describe('resolve: the order of DECISIONS §5', () => {
  it('sends a plain link to its long URL with its type', () => {
    expect(resolve(link({ type: 'frame' }), ctx(), NOW)).toEqual({ kind: 'go', url: 'https://example.com/landing', type: 'frame', rotation: undefined })
  })

  it('answers disabled before anything else, even when expired and protected', () => {
    expect(resolve(link({ disabled: true, expiresAt: NOW - 1, passwordHash: 'x' }), ctx(), NOW)).toEqual({ kind: 'disabled' })
  })

  it('answers expired (with its expiration URL) before asking for the password', () => {
    expect(resolve(link({ expiresAt: NOW - 1, passwordHash: 'x', expirationUrl: 'https://example.com/over' }), ctx(), NOW)).toEqual({
      kind: 'expired',
      url: 'https://example.com/over',
    })
    expect(resolve(link({ expiresAt: NOW, passwordHash: 'x' }), ctx(), NOW)).toEqual({ kind: 'expired', url: null })
  })

  it('is not expired one millisecond before its expiry', () => {
    expect(resolve(link({ expiresAt: NOW + 1 }), ctx(), NOW).kind).toBe('go')
  })

  it('expires by clicks once the live count reaches expiration_clicks', () => {
    const l = link({ expirationClicks: 3 })
    expect(resolve(l, ctx({ clicks: 2 }), NOW).kind).toBe('go')
    expect(resolve(l, ctx({ clicks: 3 }), NOW)).toEqual({ kind: 'expired', url: null })
    expect(isExpired(l, 4, NOW)).toBe(true)
    // 0 means no click cap
    expect(isExpired(link({ expirationClicks: 0 }), 1_000_000, NOW)).toBe(false)
  })

  it('asks for the password unless the visitor unlocked the link', () => {
    expect(resolve(link({ passwordHash: 'h' }), ctx(), NOW)).toEqual({ kind: 'password' })
    expect(resolve(link({ passwordHash: 'h' }), ctx({ unlocked: true }), NOW).kind).toBe('go')
  })

  it('gives crawlers the meta page only when the link has meta fields, and only after the password', () => {
    expect(resolve(link({ metaTitle: 'T' }), ctx({ isCrawler: true }), NOW)).toEqual({ kind: 'crawler' })
    expect(resolve(link({ metaImage: 'https://img.example/a.png' }), ctx({ isCrawler: true }), NOW)).toEqual({ kind: 'crawler' })
    expect(resolve(link(), ctx({ isCrawler: true }), NOW).kind).toBe('go')
    expect(resolve(link({ metaTitle: 'T', passwordHash: 'h' }), ctx({ isCrawler: true }), NOW)).toEqual({ kind: 'password' })
  })
})

describe('destination: deep link, device, geo, language, rotation, long URL', () => {
  const full = link({
    deepLink: { auto: false, apple: 'https://apps.apple.com/app/id1', google: 'https://play.google.com/store/apps/details?id=x' },
    targets: {
      device: [{ match: 'Windows', url: 'https://example.com/windows' }, { match: 'iOS', url: 'https://example.com/ios' }],
      geo: [{ match: 'DE', url: 'https://example.com/de' }, { match: 'GB', url: 'https://example.com/gb' }],
      language: [{ match: 'fr', url: 'https://example.com/fr' }],
      rotation: [],
    },
  })

  it.each([
    ['iPhone', 'https://apps.apple.com/app/id1'],
    ['iPad', 'https://apps.apple.com/app/id1'],
    ['Android', 'https://play.google.com/store/apps/details?id=x'],
  ] as const)('sends %s visitors to their deep link first', (device, url) => {
    expect(destination(full, { device, country: 'DE', language: 'fr' })).toEqual({ url })
  })

  it('falls through to device targets when the deep link for the platform is absent', () => {
    const l = { ...full, deepLink: { auto: true, apple: null, google: 'https://play.google.com/x' } }
    expect(destination(l, { device: 'iPhone', country: null, language: null })).toEqual({ url: 'https://example.com/ios' })
  })

  it('prefers a device target over geo and language', () => {
    expect(destination(full, { device: 'Windows', country: 'DE', language: 'fr' })).toEqual({ url: 'https://example.com/windows' })
  })

  it('uses geo before language', () => {
    expect(destination(full, { device: 'Mac', country: 'GB', language: 'fr' })).toEqual({ url: 'https://example.com/gb' })
  })

  it('uses the language when no geo target matches', () => {
    expect(destination(full, { device: 'Linux', country: 'US', language: 'fr' })).toEqual({ url: 'https://example.com/fr' })
  })

  it('falls back to the long URL', () => {
    expect(destination(full, { device: 'Linux', country: 'US', language: 'en' })).toEqual({ url: 'https://example.com/landing' })
    expect(destination(full, { device: null, country: null, language: null })).toEqual({ url: 'https://example.com/landing' })
  })

  it('matches targets case-insensitively on their normalised keys', () => {
    const l = link({ targets: { device: [{ match: 'android', url: 'https://a.example/' }], geo: [{ match: 'us', url: 'https://u.example/' }], language: [{ match: 'pt-BR', url: 'https://p.example/' }], rotation: [] } })
    expect(destination(l, { device: 'Android', country: null, language: null }).url).toBe('https://a.example/')
    expect(destination(l, { device: null, country: 'US', language: null }).url).toBe('https://u.example/')
    expect(destination(l, { device: null, country: null, language: 'pt' }).url).toBe('https://p.example/')
  })

  it('rotates round-robin from last_rotation (1-based position of the last one served)', () => {
    const rot = ['https://r.example/1', 'https://r.example/2', 'https://r.example/3']
    const l = link({ targets: { device: [], geo: [], language: [], rotation: rot } })
    const served: string[] = []
    for (let i = 0; i < 7; i++) {
      const d = destination(l, { device: null, country: null, language: null })
      served.push(d.url)
      l.lastRotation = d.rotation!
    }
    expect(served).toEqual([rot[0], rot[1], rot[2], rot[0], rot[1], rot[2], rot[0]])
    expect(destination(link({ lastRotation: 5, targets: { device: [], geo: [], language: [], rotation: rot } }), { device: null, country: null, language: null })).toEqual({
      url: rot[2],
      rotation: 3,
    })
  })

  it('applies targets before rotation', () => {
    const l = link({ targets: { device: [], geo: [{ match: 'FR', url: 'https://fr.example/' }], language: [], rotation: ['https://r.example/1'] } })
    expect(destination(l, { device: null, country: 'FR', language: null })).toEqual({ url: 'https://fr.example/' })
    expect(destination(l, { device: null, country: 'IT', language: null })).toEqual({ url: 'https://r.example/1', rotation: 1 })
  })
})

describe('withParameters: visitor query and link parameters', () => {
  it('keeps a destination without query untouched', () => {
    expect(withParameters('https://example.com/a', '', [])).toBe('https://example.com/a')
  })

  it('forwards the visitor query onto a destination that has a query and a fragment', () => {
    expect(withParameters('https://example.com/a?x=1#top', 'y=2&z=3', [])).toBe('https://example.com/a?x=1&y=2&z=3#top')
  })

  it("lets the visitor's parameters override the destination's, and the link's override both", () => {
    expect(withParameters('https://example.com/?a=1&b=1', 'b=2&c=2', [{ name: 'c', value: 'link' }, { name: 'd', value: 'x y' }])).toBe(
      'https://example.com/?a=1&b=2&c=link&d=x+y',
    )
  })

  it('sets the link parameters on a URL with a query and a fragment', () => {
    expect(withParameters('https://shop.example/p?id=7#reviews', '', [{ name: 'utm_source', value: 'kurz' }, { name: 'utm_medium', value: 'social media' }])).toBe(
      'https://shop.example/p?id=7&utm_source=kurz&utm_medium=social+media#reviews',
    )
  })

  it('does not double-encode what is already encoded', () => {
    expect(withParameters('https://example.com/a%20b?q=caf%C3%A9', 'r=%E2%9C%93&s=a+b', [])).toBe('https://example.com/a%20b?q=caf%C3%A9&r=%E2%9C%93&s=a+b')
  })

  it('compares names decoded: an encoded visitor name replaces the same plain one', () => {
    expect(withParameters('https://example.com/?a%20b=1', 'a+b=2', [])).toBe('https://example.com/?a+b=2')
  })

  it('keeps repeated visitor parameters (arrays)', () => {
    expect(withParameters('https://example.com/', 'tag=a&tag=b', [])).toBe('https://example.com/?tag=a&tag=b')
  })

  it('never lets CR or LF through, encoded or raw', () => {
    const out = withParameters('https://example.com/', 'q=%0d%0aSet-Cookie:%20x=1&r=\r\nX-Evil: 1', [{ name: 'n', value: 'a\r\nb' }])
    expect(out).not.toMatch(/[\r\n]/)
    expect(out).toBe('https://example.com/?q=%0d%0aSet-Cookie:%20x=1&r=%0D%0AX-Evil:%201&n=a%0D%0Ab')
  })

  it('percent-encodes non-ASCII characters as UTF-8 and IDN hosts as punycode', () => {
    expect(withParameters('https://bücher.example/straße?q=é', 'ü=1', [])).toBe('https://xn--bcher-kva.example/stra%C3%9Fe?q=%C3%A9&%C3%BC=1')
  })

  it('works for app deep-link schemes', () => {
    expect(withParameters('spotify:track:123', 'x=1', [])).toBe('spotify:track:123?x=1')
  })

  it('keeps an empty query marker and a lone fragment', () => {
    expect(withParameters('https://example.com/?#f', '', [])).toBe('https://example.com/?#f')
    expect(withParameters('https://example.com/#f', 'a=1', [])).toBe('https://example.com/?a=1#f')
  })
})

describe('safeUrl', () => {
  it.each([
    ['https://example.com/a b', 'https://example.com/a%20b'],
    ['https://example.com/100%', 'https://example.com/100%25'],
    ['https://example.com/%zz', 'https://example.com/%25zz'],
    ['https://example.com/"<>`{|}^\\', 'https://example.com/%22%3C%3E%60%7B%7C%7D%5E%5C'],
    ['https://example.com/😀', 'https://example.com/%F0%9F%98%80'],
    ['https://example.com/\ud800', 'https://example.com/%EF%BF%BD'],
    ['https://example.com/ok?a=1&b=%41', 'https://example.com/ok?a=1&b=%41'],
  ])('%s → %s', (input, output) => {
    expect(safeUrl(input)).toBe(output)
  })
})
