import { describe, expect, it } from 'vitest'
import { ApiError } from '../../src/http/errors.js'
import { buildVCard, escapeVCard, escapeWifi, foldLine, normalisePhone, parseQrData, wifiContent } from '../../src/resources/qr/content.js'
import { contrastRatio, parseColour } from '../../src/lib/colour.js'
import type { QrType } from '../../src/db/schema/qr.js'

function refusal(type: QrType, data: unknown): ApiError {
  try {
    parseQrData(type, data)
  } catch (err) {
    if (err instanceof ApiError) return err
    throw err
  }
  throw new Error(`expected ${type} ${JSON.stringify(data)} to be refused`)
}

describe('WIFI content', () => {
  it('escapes \\ ; , : and " with a backslash', () => {
    expect(escapeWifi('a\\b;c,d:e"f')).toBe('a\\\\b\\;c\\,d\\:e\\"f')
  })
  it('builds WPA, WEP, open and hidden networks', () => {
    expect(wifiContent({ ssid: 'Home;Net', password: 'pa:ss"word', encryption: 'WPA' })).toBe('WIFI:T:WPA;S:Home\\;Net;P:pa\\:ss\\"word;;')
    expect(wifiContent({ ssid: 'Old', password: 'abcde', encryption: 'WEP' })).toBe('WIFI:T:WEP;S:Old;P:abcde;;')
    expect(wifiContent({ ssid: 'Cafe', encryption: 'nopass' })).toBe('WIFI:T:nopass;S:Cafe;;')
    expect(wifiContent({ ssid: 'Hidden', password: '12345678', encryption: 'WPA', hidden: true })).toBe('WIFI:T:WPA;S:Hidden;P:12345678;H:true;;')
  })
})

describe('vCard 3.0', () => {
  it('escapes text values', () => {
    expect(escapeVCard('a\\b,c;d\ne')).toBe('a\\\\b\\,c\\;d\\ne')
  })

  it('builds a full card with CRLF endings', () => {
    expect(
      buildVCard({
        fname: 'Ada',
        lname: 'Lovelace; Countess',
        phone: '+441234567890',
        email: 'ada@example.com',
        company: 'Analytical Engines, Ltd',
        site: 'https://example.com/ada',
        address: '12 St James\'s Square\nFlat 2',
        city: 'London',
        country: 'United Kingdom',
      }),
    ).toBe(
      [
        'BEGIN:VCARD',
        'VERSION:3.0',
        'N:Lovelace\\; Countess;Ada;;;',
        'FN:Ada Lovelace\\; Countess',
        'ORG:Analytical Engines\\, Ltd',
        'TEL;TYPE=CELL:+441234567890',
        'EMAIL;TYPE=INTERNET:ada@example.com',
        'URL:https://example.com/ada',
        "ADR;TYPE=WORK:;;12 St James's Square\\nFlat 2;London;;;United Kingdom",
        'END:VCARD',
        '',
      ].join('\r\n'),
    )
  })

  it('builds a minimal card', () => {
    expect(buildVCard({ fname: 'Bob' })).toBe('BEGIN:VCARD\r\nVERSION:3.0\r\nN:;Bob;;;\r\nFN:Bob\r\nEND:VCARD\r\n')
  })

  it('folds lines over 75 octets without splitting a character', () => {
    const long = `NOTE:${'é'.repeat(60)}`
    const folded = foldLine(long)
    const lines = folded.split('\r\n')
    expect(lines.length).toBeGreaterThan(1)
    for (const l of lines) expect(Buffer.byteLength(l)).toBeLessThanOrEqual(75)
    expect(lines.slice(1).every((l) => l.startsWith(' '))).toBe(true)
    expect(lines.map((l, i) => (i ? l.slice(1) : l)).join('')).toBe(long)
    expect(foldLine('short')).toBe('short')
  })
})

describe('phone numbers and colours', () => {
  it.each([
    ['+1 (555) 123-4567', '+15551234567'],
    ['030 1234.5678', '03012345678'],
    ['112', '112'],
  ])('normalises %s', (input, out) => expect(normalisePhone(input)).toBe(out))
  it.each(['12', 'call me', '+1 555 abc', '1'.repeat(21), '++123', ''])('refuses %j', (input) => expect(normalisePhone(input)).toBeNull())

  it('parses rgb() and hex colours, refusing out-of-range values', () => {
    expect(parseColour('rgb(1, 2, 3)')).toEqual({ r: 1, g: 2, b: 3 })
    expect(parseColour('#0a0B0c')).toEqual({ r: 10, g: 11, b: 12 })
    expect(parseColour('#fff')).toEqual({ r: 255, g: 255, b: 255 })
    expect(parseColour('rgb(300,0,0)')).toBeNull()
    expect(parseColour('rgb(1,2)')).toBeNull()
    expect(parseColour('red')).toBeNull()
    expect(contrastRatio({ r: 0, g: 0, b: 0 }, { r: 255, g: 255, b: 255 })).toBeCloseTo(21)
  })
})

describe('parseQrData: content and scan target per type', () => {
  it.each<[QrType, unknown, { data: unknown; target: string | null; content: string | null }]>([
    ['text', 'Hello, world', { data: 'Hello, world', target: null, content: 'Hello, world' }],
    ['link', 'https://example.com/ä?x=ü', { data: 'https://example.com/ä?x=ü', target: 'https://example.com/%C3%A4?x=%C3%BC', content: null }],
    ['link', 'https://bücher.example/', { data: 'https://bücher.example/', target: 'https://xn--bcher-kva.example/', content: null }],
    ['link', 'tg://resolve?domain=kurz', { data: 'tg://resolve?domain=kurz', target: 'tg://resolve?domain=kurz', content: null }],
    ['phone', '+1 555 123 4567', { data: '+15551234567', target: 'tel:+15551234567', content: null }],
    ['phone', 'tel:+4930123456', { data: '+4930123456', target: 'tel:+4930123456', content: null }],
    ['email', 'ada@example.com', { data: 'ada@example.com', target: 'mailto:ada@example.com', content: null }],
    ['email', 'mailto:ada@example.com?subject=Hi', { data: 'mailto:ada@example.com?subject=Hi', target: 'mailto:ada@example.com?subject=Hi', content: null }],
    [
      'email',
      { email: 'ada@example.com', subject: 'Hello & bye', body: 'Line 1\nLine 2' },
      { data: { email: 'ada@example.com', subject: 'Hello & bye', body: 'Line 1\nLine 2' }, target: 'mailto:ada@example.com?subject=Hello%20%26%20bye&body=Line%201%0D%0ALine%202', content: null },
    ],
    ['email', { email: 'ada@example.com' }, { data: { email: 'ada@example.com' }, target: 'mailto:ada@example.com', content: null }],
    ['sms', '+15551234567', { data: '+15551234567', target: 'sms:+15551234567', content: null }],
    ['sms', 'SMSTO:+15551234567:Hi there', { data: 'SMSTO:+15551234567:Hi there', target: 'sms:+15551234567?body=Hi%20there', content: null }],
    ['sms', 'sms:+15551234567?body=Hi%20there', { data: 'sms:+15551234567?body=Hi%20there', target: 'sms:+15551234567?body=Hi%20there', content: null }],
    ['sms', { phone: '+1 555 123 4567', message: 'Ja & nein?' }, { data: { phone: '+15551234567', message: 'Ja & nein?' }, target: 'sms:+15551234567?body=Ja%20%26%20nein%3F', content: null }],
    [
      'wifi',
      { ssid: 'My;Net', password: 'secret:pass', encryption: 'wpa' },
      { data: { ssid: 'My;Net', password: 'secret:pass', encryption: 'WPA' }, target: null, content: 'WIFI:T:WPA;S:My\\;Net;P:secret\\:pass;;' },
    ],
    ['wifi', { ssid: 'Open', encryption: 'nopass' }, { data: { ssid: 'Open', encryption: 'nopass' }, target: null, content: 'WIFI:T:nopass;S:Open;;' }],
    ['wifi', 'WIFI:T:WPA;S:x;P:12345678;;', { data: 'WIFI:T:WPA;S:x;P:12345678;;', target: null, content: 'WIFI:T:WPA;S:x;P:12345678;;' }],
    [
      'vcard',
      { fname: 'Ada', site: 'example.com' },
      { data: { fname: 'Ada', site: 'https://example.com/' }, target: 'BEGIN:VCARD\r\nVERSION:3.0\r\nN:;Ada;;;\r\nFN:Ada\r\nURL:https://example.com/\r\nEND:VCARD\r\n', content: null },
    ],
    [
      'vcard',
      'BEGIN:VCARD\nVERSION:3.0\nFN:Raw\nEND:VCARD',
      { data: 'BEGIN:VCARD\nVERSION:3.0\nFN:Raw\nEND:VCARD', target: 'BEGIN:VCARD\r\nVERSION:3.0\r\nFN:Raw\r\nEND:VCARD\r\n', content: null },
    ],
  ])('%s %j', (type, data, expected) => {
    expect(parseQrData(type, data)).toEqual(expected)
  })

  it.each<[QrType, unknown, RegExp]>([
    ['text', undefined, /^data is required\.$/],
    ['text', '', /^data is required\.$/],
    ['text', '   ', /^data must not be empty\.$/],
    ['text', 42, /^data must be a string for type text\.$/],
    ['text', { text: 'x' }, /^data must be a string for type text\.$/],
    ['text', 'x'.repeat(4097), /^data must be at most 4096 characters\.$/],
    ['link', 'javascript:alert(1)', /^data is refused: the javascript: scheme is not allowed\.$/],
    ['link', 'JaVaScRiPt:alert(1)', /^data .*javascript: scheme is not allowed/],
    ['link', 'data:text/html,<b>x</b>', /^data .*data: scheme/],
    ['link', '//evil.com', /^data /],
    ['link', 'https://example.com/a b', /^data must not contain spaces/],
    ['link', { url: 'https://example.com' }, /^data must be a string \(the URL\) for type link\.$/],
    ['phone', 'call me', /^data must be a phone number/],
    ['phone', ['+1555'], /^data must be a string \(the phone number\)/],
    ['email', 'not-an-address', /^data must be a valid e-mail address/],
    ['email', { subject: 'x' }, /^data\.email /],
    ['email', { email: 'nope' }, /^data\.email must be a valid email address\.$/],
    ['email', { email: 'a@example.com', subject: 5 }, /^data\.subject /],
    ['email', { email: 'a@example.com', body: 'x'.repeat(2001) }, /^data\.body must be at most 2000 characters\.$/],
    ['email', [1, 2], /^data must be an object \{email, subject, body\}/],
    ['sms', { message: 'hi' }, /^data\.phone /],
    ['sms', { phone: 'abc' }, /^data\.phone must be a phone number/],
    ['sms', { phone: '+15551234567', message: 'x'.repeat(1001) }, /^data\.message /],
    ['sms', 'not a number', /^data must be a phone number/],
    ['wifi', { password: 'x', encryption: 'WPA' }, /^data\.ssid /],
    ['wifi', { ssid: 'x'.repeat(33), encryption: 'nopass' }, /^data\.ssid must be at most 32 bytes\.$/],
    ['wifi', { ssid: 'Net', password: 'x', encryption: 'nopass' }, /^data\.password must be empty when encryption is nopass\.$/],
    ['wifi', { ssid: 'Net', encryption: 'WPA5' }, /^data\.encryption must be one of WPA, WEP, nopass\.$/],
    ['wifi', { ssid: 'Net' }, /^data\.encryption /],
    ['wifi', 'Home network', /^data must be an object \{ssid, password, encryption\} or a string like WIFI:/],
    ['vcard', { lname: 'Lovelace' }, /^data\.fname /],
    ['vcard', { fname: 'Ada', email: 'x' }, /^data\.email /],
    ['vcard', { fname: 'Ada', phone: 'x' }, /^data\.phone /],
    ['vcard', { fname: 'Ada', site: 'javascript:alert(1)' }, /^data\.site /],
    ['vcard', { fname: 'x'.repeat(101) }, /^data\.fname must be at most 100 characters\.$/],
    ['vcard', 'Ada Lovelace', /^data must be an object \{fname, …\} or a vCard string/],
  ])('%s %j is refused naming the field', (type, data, message) => {
    const err = refusal(type, data)
    expect(err.status).toBe(400)
    expect(err.message).toMatch(message)
  })
})
