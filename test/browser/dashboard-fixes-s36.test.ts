import { beforeAll, describe, expect, it } from 'vitest'
import { eq } from 'drizzle-orm'
import { webhooks } from '../../src/db/schema/index.js'
import { hasChromium } from '../helpers/fixtures.js'
import type { TestUser } from '../helpers/app.js'
import { browserSuite } from './session.js'

/**
 * Dashboard of session 36: a webhook whose click events were skipped (the account's backlog was
 * full, WEBHOOK_CLICK_BACKLOG) says so on its card, so the owner knows why events are missing.
 */
describe.skipIf(!hasChromium)('dashboard in Chromium: skipped click events on a webhook', () => {
  const s = browserSuite({ dashboard: true, timeout: 8000 })
  let user: TestUser

  beforeAll(async () => {
    user = await s.t.makeUser({ plan: 'pro' })
  })

  it('a webhook card counts the click events that were not sent, and when; a webhook without skips says nothing of it', async () => {
    const behind = (await user.api.post('/api/webhook/add', { url: 'https://93.184.216.34/behind', events: ['link.clicked'] })).json().id as number
    await user.api.post('/api/webhook/add', { url: 'https://93.184.216.34/fine', events: ['link.clicked'] })
    await s.t.app.db.update(webhooks).set({ clickEventsSkipped: 12_345, clickEventsSkippedAt: new Date('2026-11-30T10:20:00Z') }).where(eq(webhooks.id, behind))
    for (const viewport of [{ width: 1440, height: 900 }, { width: 360, height: 740 }]) {
      const page = await s.signIn(user, { viewport })
      await page.goto(s.origin + '/dashboard/webhooks')
      const card = (url: string) => page.getByRole('region', { name: url })
      const note = card('https://93.184.216.34/behind').getByText(/click events not sent/)
      await note.waitFor()
      expect(await note.textContent()).toMatch(/^12,345 click events not sent: your receivers had too many deliveries waiting \(last on .+2026.*\)\. Click events are queued again once they catch up\.$/)
      expect(await card('https://93.184.216.34/fine').getByText(/not sent/).count()).toBe(0)
      expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(viewport.width)
      if (process.env.SHOT) await page.screenshot({ path: `/tmp/webhook-note-${viewport.width}.png`, fullPage: true })
      await page.close()
    }
  })
})
