import type { FastifyRequest } from 'fastify'
import { describe, expect, it } from 'vitest'
import { UA } from '../redirect/user-agents.js'
import { deviceOf, firstLanguage, isBotAgent, isCrawlerAgent, canonicalIp, normaliseIp, platformOf, visitorFromRequest } from '../../src/visit/visitor.js'

describe('deviceOf', () => {
  it.each([
    [UA.iPhone, 'iPhone'],
    [UA.iPad, 'iPad'],
    [UA.android, 'Android'],
    [UA.windows, 'Windows'],
    [UA.mac, 'Mac'],
    [UA.linux, 'Linux'],
    [UA.ubuntu, 'Linux'],
    [UA.chromeOS, 'Chrome OS'],
    [UA.windowsPhone, 'Windows Phone'],
    [UA.blackberry, 'BlackBerry'],
    [UA.curl, null],
    ['', null],
  ])('%s → %s', (ua, device) => {
    expect(deviceOf(ua)).toBe(device)
  })

  it('maps iPhone and iPad to iOS, Android to android, others to none', () => {
    expect([platformOf('iPhone'), platformOf('iPad'), platformOf('Android'), platformOf('Mac'), platformOf(null)]).toEqual(['ios', 'ios', 'android', null, null])
  })
})

describe('firstLanguage', () => {
  it.each([
    ['fr-CH, fr;q=0.9, en;q=0.8, de;q=0.7, *;q=0.5', 'fr'],
    ['en-US,en;q=0.9', 'en'],
    ['DE', 'de'],
    ['pt_BR', 'pt'],
    ['en;q=0.1, fr;q=0.9', 'en'],
    ['*', null],
    ['', null],
    ['x'.repeat(300), null],
    ['\u00ff\u00fe garbage', null],
  ])('%j → %s', (header, lang) => {
    expect(firstLanguage(header)).toBe(lang)
  })
})

describe('bots and crawlers', () => {
  it.each([UA.facebook, UA.twitter, UA.linkedin, UA.slack, UA.whatsapp, UA.discord, UA.telegram])('%s is a social crawler and a bot', (ua) => {
    expect(isCrawlerAgent(ua)).toBe(true)
    expect(isBotAgent(ua)).toBe(true)
  })

  it.each([UA.googlebot, UA.bingbot])('%s is a bot, not a social crawler', (ua) => {
    expect(isBotAgent(ua)).toBe(true)
    expect(isCrawlerAgent(ua)).toBe(false)
  })

  it.each([UA.iPhone, UA.android, UA.windows, UA.mac, UA.linux, UA.curl, UA.python, UA.node, ''])('%j is a person (HTTP libraries included)', (ua) => {
    expect(isBotAgent(ua)).toBe(false)
    expect(isCrawlerAgent(ua)).toBe(false)
  })
})

describe('normaliseIp', () => {
  it('unwraps IPv4-mapped IPv6 and leaves the rest', () => {
    expect(normaliseIp('::ffff:81.2.69.142')).toBe('81.2.69.142')
    expect(normaliseIp('2a00:1450:4001::1')).toBe('2a00:1450:4001::1')
    expect(normaliseIp('127.0.0.1')).toBe('127.0.0.1')
  })
})

describe('canonicalIp', () => {
  it('writes each IPv6 address one way and leaves IPv4 alone', () => {
    for (const ip of ['2001:db8:0:0::1', '2001:DB8::1', '2001:0db8:0000:0000:0000:0000:0000:0001']) expect(canonicalIp(ip)).toBe('2001:db8::1')
    expect(canonicalIp('81.2.69.142')).toBe('81.2.69.142')
    expect(canonicalIp('fe80::1%eth0')).toBe('fe80::1%eth0')
  })
})

describe('visitorFromRequest', () => {
  const req = (headers: Record<string, string | string[]>, ip = '81.2.69.142') => ({ headers, ip }) as unknown as FastifyRequest

  it('reads every field from the headers', () => {
    expect(visitorFromRequest(req({ 'user-agent': UA.iPhone, referer: 'https://t.co/abc', 'accept-language': 'de-DE,de;q=0.9' }))).toEqual({
      ip: '81.2.69.142',
      userAgent: UA.iPhone,
      referrer: 'https://t.co/abc',
      acceptLanguage: 'de-DE,de;q=0.9',
      language: 'de',
      device: 'iPhone',
      ubuntu: false,
      isBot: false,
      isCrawler: false,
    })
  })

  it('caps huge headers and survives absent ones', () => {
    const v = visitorFromRequest(req({ 'user-agent': 'A'.repeat(8192), referer: 'https://x.example/' + 'r'.repeat(8192), 'accept-language': 'q'.repeat(8192) }, '::ffff:8.8.8.8'))
    expect(v.userAgent).toHaveLength(512)
    expect(v.referrer).toHaveLength(1024)
    expect(v.acceptLanguage).toHaveLength(256)
    expect(v.ip).toBe('8.8.8.8')
    expect(visitorFromRequest(req({}))).toEqual({
      ip: '81.2.69.142',
      userAgent: '',
      referrer: '',
      acceptLanguage: '',
      language: null,
      device: null,
      ubuntu: false,
      isBot: false,
      isCrawler: false,
    })
  })

  it('takes the first of repeated headers', () => {
    expect(visitorFromRequest(req({ 'user-agent': [UA.facebook, UA.iPhone] })).isCrawler).toBe(true)
  })
})
