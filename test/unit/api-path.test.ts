import { describe, expect, it } from 'vitest'
import { isApiPath } from '../../src/http/errors.js'

describe('isApiPath', () => {
  it('knows the interfaces however a client spelled the path', () => {
    for (const url of ['/api', '/API', '/api/urls', '/API/urls', '/api%2Furls', '/Api%2fUrls?x=1', '/api?x=1', '/api#top', '/links/', '/LINKS/abc', '/links%2Fabc', '/Links%2f']) {
      expect(isApiPath(url), url).toBe(true)
    }
  })

  it('leaves every other path to the pages, short links that start like one included', () => {
    for (const url of ['/', '/abc', '/apix', '/apple', '/api-docs', '/links', '/linksx/', '/l', '/a', '/%2fapi/urls', '/x/api/urls', '/Zapi', '']) {
      expect(isApiPath(url), url).toBe(false)
    }
  })
})
