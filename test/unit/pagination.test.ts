import { describe, expect, it } from 'vitest'
import { listResponse, offsetOf, pageData, pageQuery } from '../../src/http/pagination.js'

describe('pageQuery', () => {
  it('defaults to limit 15, page 1', () => {
    expect(pageQuery.parse({})).toEqual({ limit: 15, page: 1 })
  })
  it('reads a blank limit or page as absent (clients that send every field)', () => {
    expect(pageQuery.parse({ limit: '', page: '' })).toEqual({ limit: 15, page: 1 })
    expect(pageQuery.parse({ limit: ' ', page: '2' })).toEqual({ limit: 15, page: 2 })
  })
  it('reads query strings and clamps limit to 1000', () => {
    expect(pageQuery.parse({ limit: '50', page: '3' })).toEqual({ limit: 50, page: 3 })
    expect(pageQuery.parse({ limit: '1000' }).limit).toBe(1000)
    expect(pageQuery.parse({ limit: '1001' }).limit).toBe(1000)
    expect(pageQuery.parse({ limit: '99999999999' }).limit).toBe(1000)
  })
  it.each([
    [{ limit: '0' }, 'limit'], [{ limit: '-1' }, 'limit'], [{ limit: 'abc' }, 'limit'], [{ limit: '1.5' }, 'limit'],
    [{ page: '0' }, 'page'], [{ page: '-2' }, 'page'], [{ page: 'x' }, 'page'], [{ page: '1e12' }, 'page'],
  ])('refuses %j naming %s', (q, field) => {
    const r = pageQuery.safeParse(q)
    expect(r.success).toBe(false)
    expect(r.error!.issues[0].path).toEqual([field])
  })
})

describe('pageData / listResponse', () => {
  it.each([
    // total, limit, page → result, perpage, currentpage, nextpage, maxpage
    [0, 15, 1, { result: 0, perpage: 15, currentpage: 1, nextpage: 1, maxpage: 1 }],
    [15, 15, 1, { result: 15, perpage: 15, currentpage: 1, nextpage: 1, maxpage: 1 }],
    [16, 15, 1, { result: 16, perpage: 15, currentpage: 1, nextpage: 2, maxpage: 2 }],
    [16, 15, 2, { result: 16, perpage: 15, currentpage: 2, nextpage: 2, maxpage: 2 }],
    [100, 10, 5, { result: 100, perpage: 10, currentpage: 5, nextpage: 6, maxpage: 10 }],
    [100, 10, 42, { result: 100, perpage: 10, currentpage: 42, nextpage: 10, maxpage: 10 }],
  ])('total %i, limit %i, page %i', (total, limit, page, expected) => {
    expect(pageData(total, { limit, page })).toEqual(expected)
  })

  it('wraps items under the resource key with error "0"', () => {
    expect(listResponse('pixels', [{ id: 1 }], 1, { limit: 15, page: 1 })).toEqual({
      error: '0',
      data: { result: 1, perpage: 15, currentpage: 1, nextpage: 1, maxpage: 1, pixels: [{ id: 1 }] },
    })
  })

  it('offsetOf', () => {
    expect(offsetOf({ limit: 15, page: 1 })).toBe(0)
    expect(offsetOf({ limit: 20, page: 3 })).toBe(40)
  })
})
