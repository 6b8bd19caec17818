import { describe, expect, it } from 'vitest'
import { escapeHtml } from '../../src/lib/escape-html.js'
import { contentSecurityPolicy, html, raw, renderPage } from '../../src/lib/html.js'

describe('escapeHtml', () => {
  it('escapes the characters that matter in content and quoted attributes', () => {
    expect(escapeHtml(`<script>alert("x")</script> & 'y' \`z\``)).toBe(
      '&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; &#39;y&#39; &#96;z&#96;',
    )
  })
  it('turns null and undefined into an empty string, numbers into text', () => {
    expect(escapeHtml(null)).toBe('')
    expect(escapeHtml(undefined)).toBe('')
    expect(escapeHtml(42)).toBe('42')
  })
  it('does not double-escape nothing it should not touch', () => {
    expect(escapeHtml('plain text ü 🎉')).toBe('plain text ü 🎉')
    expect(escapeHtml('&amp;')).toBe('&amp;amp;')
  })
})

describe('html template', () => {
  it('escapes every value unless it is raw()', () => {
    const name = '"><img src=x onerror=alert(1)>'
    expect(html`<a title="${name}">${name}</a>${raw('<br>')}`.value).toBe(
      '<a title="&quot;&gt;&lt;img src=x onerror=alert(1)&gt;">&quot;&gt;&lt;img src=x onerror=alert(1)&gt;</a><br>',
    )
  })
  it('escapes arrays item by item and nests html fragments unescaped', () => {
    const items = ['<b>', '&']
    expect(html`<ul>${items.map((i) => html`<li>${i}</li>`)}</ul>`.value).toBe('<ul><li>&lt;b&gt;</li><li>&amp;</li></ul>')
  })
  it('escapes the page title', () => {
    expect(renderPage({ title: '</title><script>', body: '' })).toContain('<title>&lt;/title&gt;&lt;script&gt;</title>')
  })
  it('sends a strict CSP by default', () => {
    const csp = contentSecurityPolicy({ title: '', body: '' })
    expect(csp).toContain("default-src 'none'")
    expect(csp).toContain("script-src 'none'")
    expect(csp).toContain("frame-src 'none'")
    expect(csp).toContain("base-uri 'none'")
  })
})
