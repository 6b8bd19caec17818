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

/**
 * The page's main action when what focus would return to is gone: its primary "New …" (or "Add …")
 * button in the heading's actions, else the heading itself.
 */
export function focusPageStart() {
  const main = document.querySelector<HTMLElement>('#main .page-actions button:not(.secondary):not(:disabled)')
  if (!moveFocus(main)) focusPageTitle()
}

/**
 * After a dialog closes, focus returns to the element that opened it. That element may be gone
 * already (the dialog's save replaced it) or go soon after (an empty state's "Create your first
 * link" replaced by the list once it reloads), which would drop focus on <body>: focus then moves
 * to the page's main action. Focus the visitor moved meanwhile stays; a key or a click ends the watch.
 */
export function keepReturnFocus(target: Element | null) {
  const dropped = () => !document.activeElement || document.activeElement === document.body
  // a dialog the address opened (a reload) had nothing to return to
  const gone = () => !target?.isConnected || target === document.body
  if (gone()) {
    if (dropped()) focusPageStart()
    return
  }
  const watch = new MutationObserver(() => {
    if (!gone()) return
    stop()
    if (dropped()) focusPageStart()
  })
  const timer = window.setTimeout(() => stop(), 30_000)
  const stop = () => {
    watch.disconnect()
    window.clearTimeout(timer)
    for (const type of ['keydown', 'pointerdown']) document.removeEventListener(type, stop, true)
  }
  for (const type of ['keydown', 'pointerdown']) document.addEventListener(type, stop, true)
  watch.observe(document.body, { childList: true, subtree: true })
}
