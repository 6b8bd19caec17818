import { beforeAll, describe, expect, it } from 'vitest'
import type { Locator, Page } from 'playwright-core'
import { addLink, hasChromium } from '../helpers/fixtures.js'
import type { TestUser } from '../helpers/app.js'
import { browserSuite } from './session.js'
import { expectMarked } from './refusal-checks.js'

/**
 * Dashboard of session 38, its forms: a control's edge stands out from what it sits on (3:1, WCAG
 * 1.4.11) in light and dark; text, select and date boxes are one height, so labels above a row of
 * them line up; and a refusal naming its field later in the sentence ("That slug is already taken…")
 * marks that field as one naming it first does.
 */
describe.skipIf(!hasChromium)('dashboard in Chromium: session 38 fixes', () => {
  const s = browserSuite({ dashboard: true, timeout: 8000 })
  const phone = { width: 360, height: 740 }
  const desk = { width: 1440, height: 900 }
  let user: TestUser
  let linkId: number
  let adminLinkId: number

  beforeAll(async () => {
    user = await s.t.makeUser({ plan: 'pro' })
    linkId = await addLink(user, { url: 'https://acme.example/s38', custom: 's38-link' })
    adminLinkId = await addLink(s.admin, { url: 'https://acme.example/s38-admin', custom: 's38-admin' })
  })

  /** The New link dialog of the Links page, every section open. */
  async function newLinkForm(page: Page): Promise<Locator> {
    await page.getByRole('button', { name: 'New link' }).click()
    const dialog = page.getByRole('dialog', { name: 'New link' })
    await dialog.getByLabel('Destination URL').waitFor()
    for (const d of await dialog.locator('details').all()) await d.evaluate((el) => ((el as HTMLDetailsElement).open = true))
    return dialog
  }

  /** The analytics page of link `id`, its range fields shown. */
  async function analytics(page: Page, id: number) {
    await page.goto(`${s.origin}/dashboard/links/${id}`)
    await page.getByLabel('Interval').waitFor()
  }

  // ------------------------------------------------------------------ 1: the edges of controls

  /** WCAG 2.1 relative luminance of an sRGB colour given as 0–255 channels. */
  const luminance = (rgb: number[]) => {
    const [r, g, b] = rgb.map((c) => c / 255).map((c) => (c <= 0.04045 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4))
    return 0.2126 * r + 0.7152 * g + 0.0722 * b
  }
  const contrast = (a: number[], b: number[]) => {
    const [hi, lo] = [luminance(a), luminance(b)].sort((x, y) => y - x)
    return (hi + 0.05) / (lo + 0.05)
  }

  /** Each visible text, select, textarea and date control in `scope`: its border colour and the opaque colour behind it. */
  const edges = (scope: Locator) =>
    scope.evaluate((root) => {
      const rgba = (c: string) => (c.match(/[\d.]+/g) ?? []).map(Number).concat(1).slice(0, 4)
      // the colour around the control: its ancestors' backgrounds, laid over each other until one is opaque
      const behind = (el: Element) => {
        const layers: number[][] = []
        for (let e = el.parentElement; e; e = e.parentElement) {
          const c = rgba(getComputedStyle(e).backgroundColor)
          if (c[3] > 0) layers.push(c)
          if (c[3] >= 1) break
        }
        return layers.reverse().reduce((under, [r, g, b, a]) => [r * a + under[0] * (1 - a), g * a + under[1] * (1 - a), b * a + under[2] * (1 - a)], [255, 255, 255])
      }
      const boxes = Array.from(root.querySelectorAll<HTMLInputElement>('input:not([type=checkbox], [type=radio], [type=color], [type=range], [type=file], [type=hidden]), select, textarea'))
      return boxes
        .filter((el) => el.getBoundingClientRect().height > 0)
        .map((el) => ({
          kind: el.tagName === 'INPUT' ? (/date|time/.test(el.type) ? 'date' : 'input') : el.tagName.toLowerCase(),
          name: el.labels?.[0]?.textContent ?? el.type,
          border: rgba(getComputedStyle(el).borderTopColor).slice(0, 3),
          behind: behind(el),
        }))
    })

  it('text fields, selects, textareas and date fields have an edge of at least 3:1 against the card or page behind them, light and dark', async () => {
    for (const colorScheme of ['light', 'dark'] as const) {
      const page = await s.signIn(user, { viewport: desk, colorScheme })
      const found: Awaited<ReturnType<typeof edges>> = []
      found.push(...(await edges(page.getByRole('search')))) // on the page's own background
      found.push(...(await edges(await newLinkForm(page)))) // on the dialog's panel and its sections
      await analytics(page, linkId)
      found.push(...(await edges(page.locator('.range')))) // the date fields on a card
      expect(new Set(found.map((f) => f.kind))).toEqual(new Set(['input', 'select', 'textarea', 'date']))
      // the page and the card differ, so both are measured
      expect(new Set(found.map((f) => f.behind.join())).size).toBeGreaterThanOrEqual(2)
      for (const f of found) expect(contrast(f.border, f.behind), `${colorScheme}: ${f.kind} ${f.name}`).toBeGreaterThanOrEqual(3)
      await page.close()
    }
  })

  // ------------------------------------------------------------------ 2: labels beside fields

  /**
   * The labelled text, select and date boxes in `scope` (textareas are taller on purpose), grouped
   * into lines: boxes side by side overlap vertically. Each with its label's top and bottom.
   */
  const lines = (scope: Locator) =>
    scope.evaluate((root) => {
      const fields = Array.from(root.querySelectorAll<HTMLElement>('.field > label + :is(input, select)'))
        .filter((el) => !/^(checkbox|radio|color|range|file)$/.test((el as HTMLInputElement).type) && el.getBoundingClientRect().height > 0)
        .map((el) => {
          const c = el.getBoundingClientRect()
          const l = el.previousElementSibling!.getBoundingClientRect()
          return { name: el.previousElementSibling!.textContent!, top: c.top, height: c.height, labelTop: l.top, labelBottom: l.bottom }
        })
        .sort((a, b) => a.top - b.top)
      const out: (typeof fields)[] = []
      for (const f of fields) {
        const line = out.find((l) => Math.min(l[0].top + l[0].height, f.top + f.height) - Math.max(l[0].top, f.top) > f.height / 2)
        if (line) line.push(f)
        else out.push([f])
      }
      return out
    })

  const spread = (xs: number[]) => Math.max(...xs) - Math.min(...xs)

  /** One height for every box; on each line the labels' tops, the boxes' tops and the gaps between them agree (1 px). */
  async function expectAligned(scope: Locator, where: string, mustPair: string[][]) {
    const found = await lines(scope)
    const all = found.flat()
    expect(all.length, where).toBeGreaterThan(1)
    expect(spread(all.map((f) => f.height)), `${where}: heights ${all.map((f) => `${f.name} ${f.height}`).join(', ')}`).toBeLessThanOrEqual(1)
    for (const line of found) {
      const names = line.map((f) => f.name).join(' | ')
      expect(spread(line.map((f) => f.labelTop)), `${where}: label tops of ${names}`).toBeLessThanOrEqual(1)
      expect(spread(line.map((f) => f.top)), `${where}: box tops of ${names}`).toBeLessThanOrEqual(1)
      expect(spread(line.map((f) => f.top - f.labelBottom)), `${where}: label to box of ${names}`).toBeLessThanOrEqual(1)
    }
    // the rows this test is about are measured side by side, not each on a line of its own
    for (const pair of mustPair) expect(found.some((line) => pair.every((n) => line.some((f) => f.name === n))), `${where}: ${pair.join(' beside ')}`).toBe(true)
  }

  it('at 1440 px and 360 px, text, select and date boxes are one height and the labels beside them line up: link search, New link, analytics range, New user', async () => {
    for (const viewport of [desk, phone]) {
      const wide = viewport === desk
      const page = await s.signIn(s.admin, { viewport })
      await expectAligned(page.getByRole('search'), `${viewport.width} links search`, wide ? [['Search links', 'Search in'], ['Sort by', 'Domain filter']] : [['Sort by', 'Domain filter']])
      await expectAligned(await newLinkForm(page), `${viewport.width} New link`, wide ? [['Alias', 'Domain'], ['Password', 'Expiry'], ['Redirect status', 'Cache lifetime (seconds)']] : [])
      await page.keyboard.press('Escape')
      await analytics(page, adminLinkId)
      await expectAligned(page.locator('.range'), `${viewport.width} analytics range`, wide ? [['From', 'To', 'Interval']] : [])
      await page.goto(`${s.origin}/dashboard/admin/users`)
      await page.getByRole('button', { name: 'New user' }).click()
      const dialog = page.getByRole('dialog', { name: 'New user' })
      await dialog.getByLabel('Username').waitFor()
      await expectAligned(dialog, `${viewport.width} New user`, wide ? [['Plan', 'Plan expires']] : [])
      await page.close()
    }
  })

  // ------------------------------------------------------------------ 3: refusals naming their field later



  it('New link and Edit link: an alias taken by another link marks Alias and focuses the message', async () => {
    const page = await s.signIn(user)
    const dialog = await newLinkForm(page)
    await dialog.getByLabel('Destination URL').fill('https://acme.example/again')
    const alias = dialog.getByLabel('Alias', { exact: true })
    await alias.fill('s38-link')
    await dialog.getByRole('button', { name: 'Create link' }).click()
    await expectMarked(page, dialog, alias, /^Alias: "s38-link" is already taken on that domain/)

    const other = await addLink(user, { url: 'https://acme.example/other', custom: 's38-other' })
    await page.goto(`${s.origin}/dashboard/links/${other}/edit`)
    const form = page.locator('form').filter({ has: page.getByLabel('Destination URL') })
    const editAlias = form.getByLabel('Alias', { exact: true })
    await editAlias.fill('s38-link')
    await form.getByRole('button', { name: 'Save changes' }).click()
    await expectMarked(page, form, editAlias, /^Alias: "s38-link" is already taken on that domain/)
    await page.close()
  })

  it('New campaign: a slug another campaign has marks Rotator slug; the message stays as the API says it', async () => {
    expect((await user.api.post('/api/campaign/add', { name: 'First', slug: 's38-spring' })).statusCode).toBe(200)
    const page = await s.signIn(user)
    await page.goto(`${s.origin}/dashboard/campaigns`)
    await page.getByRole('button', { name: 'New campaign' }).first().click()
    const dialog = page.getByRole('dialog', { name: 'New campaign' })
    await dialog.getByLabel('Campaign name').fill('Second')
    const slug = dialog.getByLabel('Rotator slug')
    await slug.fill('s38-spring')
    await dialog.getByRole('button', { name: 'Create campaign' }).click()
    await expectMarked(page, dialog, slug, /^That slug is already taken: choose another\.$/)
    expect(await dialog.getByLabel('Campaign name').getAttribute('aria-invalid')).toBeNull()
    // fixed, it goes through
    await slug.fill('s38-summer')
    await dialog.getByRole('button', { name: 'Create campaign' }).click()
    await dialog.waitFor({ state: 'hidden' })
    await page.close()
  })

  it('Add domain: a domain already added marks Domain name', async () => {
    expect((await user.api.post('/api/domain/add', { domain: 'https://go.s38.example' })).statusCode).toBe(200)
    const page = await s.signIn(user)
    await page.goto(`${s.origin}/dashboard/domains`)
    await page.getByRole('button', { name: 'Add domain' }).first().click()
    const dialog = page.getByRole('dialog', { name: 'Add domain' })
    const name = dialog.getByLabel('Domain name')
    await name.fill('https://go.s38.example')
    await dialog.getByRole('button', { name: 'Add domain' }).click()
    await expectMarked(page, dialog, name, /^That domain has already been added\.$/)
    await page.close()
  })

  it('Account: an email address another account has marks Email address', async () => {
    await s.t.makeUser({ email: 'taken-s38@example.com' })
    const page = await s.signIn(user)
    await page.goto(`${s.origin}/dashboard/account`)
    const form = page.getByRole('form', { name: 'Email' })
    const email = form.getByLabel('Email address')
    await email.fill('taken-s38@example.com')
    await form.getByRole('button', { name: 'Change email' }).click()
    await expectMarked(page, form, email, /^That email address is already registered\.$/)
    await page.close()
  })

  it('as admin: New user with a taken username marks Username, with a taken email Email; New plan with a taken name marks Plan name; a domain or keyword already blocked marks the field to block', async () => {
    const page = await s.signIn(s.admin)
    await page.goto(`${s.origin}/dashboard/admin/users`)
    await page.getByRole('button', { name: 'New user' }).click()
    const dialog = page.getByRole('dialog', { name: 'New user' })
    const username = dialog.getByLabel('Username')
    const email = dialog.getByLabel('Email')
    await username.fill(user.user.username)
    await email.fill('fresh-s38@example.com')
    await dialog.getByLabel('Password').fill('secret-s38')
    await dialog.getByRole('button', { name: 'Create user' }).click()
    await expectMarked(page, dialog, username, /^That username is already taken\.$/)
    await username.fill('fresh-s38')
    await email.fill('taken-s38-admin@example.com')
    await s.t.makeUser({ email: 'taken-s38-admin@example.com' })
    await dialog.getByRole('button', { name: 'Create user' }).click()
    await expectMarked(page, dialog, email, /^That email address is already registered\.$/)
    expect(await username.getAttribute('aria-invalid')).toBeNull()

    expect((await s.admin.api.post('/api/plan/add', { name: 'S38 plan' })).statusCode).toBe(200)
    await page.goto(`${s.origin}/dashboard/admin/plans`)
    await page.getByRole('button', { name: 'New plan' }).click()
    const plan = page.getByRole('dialog', { name: 'New plan' })
    const planName = plan.getByLabel('Plan name')
    await planName.fill('S38 plan')
    await plan.getByRole('button', { name: 'Create plan' }).click()
    await expectMarked(page, plan, planName, /^A plan with that name already exists\.$/)

    expect((await s.admin.api.post('/api/blocklist/add', { type: 'domain', value: 'evil-s38.example' })).statusCode).toBe(200)
    await page.goto(`${s.origin}/dashboard/admin/blocklist`)
    await page.getByRole('button', { name: 'Block a domain or keyword' }).first().click()
    const block = page.getByRole('dialog', { name: 'Block a domain or keyword' })
    const value = block.getByLabel('Domain to block')
    await value.fill('evil-s38.example')
    await block.getByRole('button', { name: 'Block' }).click()
    await expectMarked(page, block, value, /^evil-s38\.example is already on the blocklist\.$/)
    // a keyword that is also a body name ("reason …") still marks the keyword, not Reason
    expect((await s.admin.api.post('/api/blocklist/add', { type: 'keyword', value: 'reason' })).statusCode).toBe(200)
    await block.getByLabel('Kind').selectOption('keyword')
    const keyword = block.getByLabel('Keyword to block')
    await keyword.fill('reason')
    await block.getByRole('button', { name: 'Block' }).click()
    await expectMarked(page, block, keyword, /^reason is already on the blocklist\.$/)
    await page.close()
  })

  it('records no script errors', () => {
    expect(s.scriptErrors).toEqual([])
  })
})
