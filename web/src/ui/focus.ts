/**
 * Focus moved by the app (a new page's heading, the row after a deleted one) shows its ring to
 * keyboard users only: whether the last input was a key decides, not the browser's guess, which
 * rings a heading focused by a redirect before any input at all.
 */
let keyboard = false
document.addEventListener(
  'keydown',
  (e) => {
    // a modifier alone is no navigation (Ctrl+click, a screenshot shortcut)
    if (!['Control', 'Meta', 'Alt', 'Shift'].includes(e.key)) keyboard = true
  },
  true,
)
document.addEventListener('pointerdown', () => (keyboard = false), true)

/** Focus `el` as the app's own move: with a ring after a key, without one after a click or none. */
export function moveFocus(el: HTMLElement | null | undefined): boolean {
  if (!el) return false
  el.classList.toggle('quiet-focus', !keyboard)
  el.focus()
  return document.activeElement === el
}

export const focusPageTitle = () => moveFocus(document.getElementById('page-title'))
