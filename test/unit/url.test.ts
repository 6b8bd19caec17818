import { describe, expect, it } from 'vitest'
import { checkUrl, comparableHost, MAX_URL_LENGTH } from '../../src/lib/url.js'

describe('checkUrl (the one URL rule, DECISIONS §4)', () => {
  it.each([
    'https://example.com',
    'http://example.com/path?q=1#frag',
    'HTTPS://EXAMPLE.COM/',
    'https://xn--bcher-kva.example/',
    'https://bücher.example/straße',
    'https://example.com:8443/x',
    'https://[2001:db8::1]/',
    'tg://resolve?domain=kurz',
    'spotify:track:4uLU6hMCjMI75M1A2tKUQC',
    'mailto:someone@example.com',
  ])('accepts %s', (url) => {
    expect(checkUrl(url).ok).toBe(true)
  })

  it.each([
    ['javascript:alert(1)', /javascript/],
    ['JaVaScRiPt:alert(1)', /javascript/],
    [' javascript:alert(1)', /javascript/],
    ['data:text/html,<script>alert(1)</script>', /data/],
    ['vbscript:msgbox', /vbscript/],
    ['file:///etc/passwd', /file/],
    ['%6Aavascript:alert(1)', /absolute URL/],
    ['\u0000javascript:alert(1)', /control/],
    ['java\tscript:alert(1)', /control|spaces/],
    ['/relative/path', /absolute/],
    ['//evil.com', /absolute/],
    ['http:/x', /absolute URL/],
    ['https://', /absolute URL/],
    ['https://user:pass@example.com', /user name or password/],
    ['https://exa mple.com', /spaces/],
    ['', /empty/],
    ['spotify:', /something after/],
    [`https://example.com/${'a'.repeat(MAX_URL_LENGTH)}`, /at most 8192/],
  ])('refuses %j', (url, message) => {
    const r = checkUrl(url)
    expect(r.ok).toBe(false)
    if (!r.ok) expect(r.message).toMatch(message)
  })

  it('takes exactly 8 KiB and refuses 8 KiB + 1', () => {
    const base = 'https://example.com/'
    expect(checkUrl(base + 'a'.repeat(MAX_URL_LENGTH - base.length)).ok).toBe(true)
    expect(checkUrl(base + 'a'.repeat(MAX_URL_LENGTH - base.length + 1)).ok).toBe(false)
  })

  it('httpOnly refuses app schemes', () => {
    expect(checkUrl('tg://resolve', { httpOnly: true }).ok).toBe(false)
    expect(checkUrl('https://x.example', { httpOnly: true }).ok).toBe(true)
  })

  it('comparableHost folds case, a trailing dot and www.', () => {
    expect(comparableHost('WWW.Kurz.Test.')).toBe('kurz.test')
    expect(comparableHost('go.kurz.test')).toBe('go.kurz.test')
  })
})
