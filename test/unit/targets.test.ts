import { describe, expect, it } from 'vitest'
import {
  countryName,
  DEVICES,
  deviceMatches,
  isCountryCode,
  languageName,
  normalizeCountry,
  normalizeDevice,
  normalizeLanguage,
  primaryLanguage,
} from '../../src/lib/targets.js'

describe('normalizeCountry', () => {
  it.each([
    ['US', 'US'],
    ['us', 'US'],
    [' de ', 'DE'],
    ['UK', 'GB'],
    ['GB', 'GB'],
    ['XK', 'XK'],
    ['United States', 'US'],
    ['united states of america', 'US'],
    ['USA', 'US'],
    ['Canada', 'CA'],
    ['CANADA', 'CA'],
    ['United Kingdom', 'GB'],
    ['Great Britain', 'GB'],
    ['Germany', 'DE'],
    ["Côte d’Ivoire", 'CI'],
    ["Cote d'Ivoire", 'CI'],
    ['Ivory Coast', 'CI'],
    ['St. Kitts & Nevis', 'KN'],
    ['Saint Kitts and Nevis', 'KN'],
    ['Bosnia and Herzegovina', 'BA'],
    ['Turkey', 'TR'],
    ['Türkiye', 'TR'],
    ['Czech Republic', 'CZ'],
    ['Czechia', 'CZ'],
    ['South Korea', 'KR'],
    ['North Korea', 'KP'],
    ['Russia', 'RU'],
    ['Russian Federation', 'RU'],
    ['Vietnam', 'VN'],
    ['Viet Nam', 'VN'],
    ['The Netherlands', 'NL'],
    ['Netherlands', 'NL'],
    ['Democratic Republic of the Congo', 'CD'],
    ['Republic of the Congo', 'CG'],
    ['Hong Kong', 'HK'],
    ['Macau', 'MO'],
    ['Myanmar', 'MM'],
    ['Burma', 'MM'],
    ['São Tomé and Príncipe', 'ST'],
    ['Sao Tome and Principe', 'ST'],
  ])('%s → %s', (input, code) => {
    expect(normalizeCountry(input)).toBe(code)
  })

  it.each(['Narnia', 'ZZ', 'EU', 'UN', 'AA', 'U', 'USAA', '', '  ', '<script>', 'x'.repeat(500), 'United', 'Europe'])(
    'refuses %j',
    (input) => {
      expect(normalizeCountry(input)).toBeNull()
    },
  )

  it('knows all 249 ISO 3166-1 codes plus XK, each with an English name', () => {
    let n = 0
    for (let a = 65; a <= 90; a++) {
      for (let b = 65; b <= 90; b++) {
        const code = String.fromCharCode(a, b)
        if (!isCountryCode(code)) continue
        n++
        expect(countryName(code)).toMatch(/^[^\s].*\S$/)
        // every name leads back to its own code
        expect(normalizeCountry(countryName(code)!)).toBe(code)
      }
    }
    expect(n).toBe(250)
  })

  it('names codes in plain English', () => {
    expect(countryName('US')).toBe('United States')
    expect(countryName('gb')).toBe('United Kingdom')
    expect(countryName('CD')).toBe('Democratic Republic of the Congo')
    expect(countryName('KN')).toBe('Saint Kitts and Nevis')
    expect(countryName('HK')).toBe('Hong Kong')
    expect(countryName('ZZ')).toBeNull()
  })
})

describe('devices', () => {
  it.each([
    ['iPhone', 'iPhone'],
    ['iphone', 'iPhone'],
    ['iPad', 'iPad'],
    ['Android', 'Android'],
    ['Windows Phone', 'Windows Phone'],
    ['windowsphone', 'Windows Phone'],
    ['Windows', 'Windows'],
    ['Mac', 'Mac'],
    ['Linux', 'Linux'],
    ['Chrome OS', 'Chrome OS'],
    ['ChromeOS', 'Chrome OS'],
    ['BlackBerry', 'BlackBerry'],
    // v1 platform names (SPEC.md)
    ['iOS', 'iOS'],
    ['OS X', 'Mac'],
    ['macOS', 'Mac'],
    ['Ubuntu', 'Ubuntu'],
  ])('normalizeDevice(%j) → %s', (input, match) => {
    expect(normalizeDevice(input)).toBe(match)
  })

  it.each(['Nokia', 'Symbian', '', 'iPhone 15', 'x'.repeat(100)])('refuses %j', (input) => {
    expect(normalizeDevice(input)).toBeNull()
  })

  it('every canonical device normalises to itself', () => {
    for (const d of DEVICES) expect(normalizeDevice(d)).toBe(d)
  })

  it('iOS targets match iPhone and iPad visitors; others match exactly', () => {
    expect(deviceMatches('iOS', 'iPhone')).toBe(true)
    expect(deviceMatches('iOS', 'iPad')).toBe(true)
    expect(deviceMatches('iOS', 'Mac')).toBe(false)
    expect(deviceMatches('iPhone', 'iPhone')).toBe(true)
    expect(deviceMatches('iPhone', 'iPad')).toBe(false)
    expect(deviceMatches('Windows', 'Windows Phone')).toBe(false)
    expect(deviceMatches('Linux', null)).toBe(false)
  })

  it('Ubuntu targets match only Ubuntu visitors; Linux targets match every Linux visitor', () => {
    expect(deviceMatches('Ubuntu', 'Linux', true)).toBe(true)
    expect(deviceMatches('Ubuntu', 'Linux', false)).toBe(false)
    expect(deviceMatches('Ubuntu', 'Windows', true)).toBe(false)
    expect(deviceMatches('Linux', 'Linux', true)).toBe(true)
    expect(deviceMatches('Linux', 'Linux')).toBe(true)
  })
})

describe('languages', () => {
  it.each([
    ['en', 'en'],
    ['EN', 'en'],
    ['fr', 'fr'],
    ['pt-BR', 'pt'],
    ['zh_Hant_TW', 'zh'],
    ['iw', 'he'],
    ['French', 'fr'],
    ['english', 'en'],
  ])('normalizeLanguage(%j) → %s', (input, code) => {
    expect(normalizeLanguage(input)).toBe(code)
  })

  it.each(['xx', 'eng', 'e', '', 'Klingon', 'en-', '<b>'])('refuses %j', (input) => {
    expect(normalizeLanguage(input)).toBeNull()
  })

  it('names languages', () => {
    expect(languageName('fr')).toBe('French')
    expect(languageName('xx')).toBeNull()
  })

  it.each([
    ['fr-CH, fr;q=0.9, en;q=0.8', 'fr'],
    ['en-US,en;q=0.5', 'en'],
    ['DE', 'de'],
    ['*', null],
    ['', null],
    [undefined, null],
    ['xx-YY', null],
    ['x'.repeat(10_000), null],
  ])('primaryLanguage(%j) → %s', (header, code) => {
    expect(primaryLanguage(header)).toBe(code)
  })
})
