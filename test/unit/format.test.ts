import { describe, expect, it } from 'vitest'
import { parseTimestamp, toDay, toTimestamp } from '../../src/http/format.js'

describe('toTimestamp / toDay', () => {
  it('formats in UTC as YYYY-MM-DD HH:MM:SS', () => {
    expect(toTimestamp(new Date('2024-03-05T07:08:09.999Z'))).toBe('2024-03-05 07:08:09')
    expect(toTimestamp(new Date('1999-12-31T23:59:59Z'))).toBe('1999-12-31 23:59:59')
    expect(toDay(new Date('2024-03-05T23:59:59Z'))).toBe('2024-03-05')
  })
  it('keeps null and undefined as null', () => {
    expect(toTimestamp(null)).toBeNull()
    expect(toTimestamp(undefined)).toBeNull()
  })
})

describe('parseTimestamp', () => {
  it.each([
    ['2030-12-31 23:59:59', '2030-12-31T23:59:59.000Z'],
    ['2030-12-31 23:59', '2030-12-31T23:59:00.000Z'],
    ['2030-12-31T23:59:59', '2030-12-31T23:59:59.000Z'],
    ['  2030-01-02 03:04:05  ', '2030-01-02T03:04:05.000Z'],
    ['2030-06-01T12:00:00Z', '2030-06-01T12:00:00.000Z'],
    ['2030-06-01T12:00:00+02:00', '2030-06-01T10:00:00.000Z'],
    ['2030-06-01T12:00:00.250Z', '2030-06-01T12:00:00.250Z'],
    ['2030-06-01', '2030-06-01T00:00:00.000Z'],
    ['2038-01-19 03:14:08', '2038-01-19T03:14:08.000Z'],
    ['2024-02-29 00:00:00', '2024-02-29T00:00:00.000Z'],
  ])('reads %j', (input, iso) => {
    expect(parseTimestamp(input)?.toISOString()).toBe(iso)
  })

  it.each([
    '', 'tomorrow', '2030-13-01 00:00:00', '2030-02-31 00:00:00', '2023-02-29 00:00:00', '2030-01-01 24:00:00',
    '2030-01-01 23:60:00', '2030-01-01 23:59:60', '31/12/2030', '2030/12/31 00:00:00', '1700000000', '2030-1-1 1:2:3',
    '2030-01-01 00:00:00; drop table users',
  ])('refuses %j', (input) => {
    expect(parseTimestamp(input)).toBeNull()
  })

  it('round-trips with toTimestamp', () => {
    const s = '2031-07-04 18:30:15'
    expect(toTimestamp(parseTimestamp(s))).toBe(s)
  })
})
