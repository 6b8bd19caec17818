import { expect } from 'vitest'
import type { Locator, Page } from 'playwright-core'

/** The focused element's role and text. */
export const focusedAlert = (p: Page) =>
  p.evaluate(() => {
    const a = document.activeElement
    return { role: a?.getAttribute('role') ?? '', text: a?.textContent ?? '' }
  })

/**
 * The form in `scope` refused with `message`: the message has focus, and `control` alone is marked
 * (aria-invalid, the red edge of styles.css) and described by it.
 */
export async function expectMarked(page: Page, scope: Locator, control: Locator, message: RegExp) {
  const alert = scope.getByRole('alert')
  await expect.poll(() => alert.textContent()).toMatch(message)
  await expect.poll(() => focusedAlert(page)).toMatchObject({ role: 'alert', text: expect.stringMatching(message) })
  const id = await alert.getAttribute('id')
  expect(id).toBeTruthy()
  expect(await control.getAttribute('aria-invalid')).toBe('true')
  expect((await control.getAttribute('aria-describedby'))?.split(' ')).toContain(id)
  expect(await scope.locator('[aria-invalid="true"]').count()).toBe(1)
  expect(await control.evaluate((el) => getComputedStyle(el).boxShadow)).not.toBe('none')
}
