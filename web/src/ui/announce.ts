/**
 * One status message for short confirmations ("Link deleted.", "Copied to the clipboard"): shown on
 * screen for a few seconds by the layout's StatusMessage and spoken by screen readers (its region
 * is `role="status"`). Each action says what it did; a new message replaces the one before.
 */
type Listener = (message: string) => void
let listener: Listener | undefined

/** The layout's StatusMessage registers here; returns what unregisters it. */
export function onAnnounce(l: Listener): () => void {
  listener = l
  return () => {
    if (listener === l) listener = undefined
  }
}

export function announce(message: string) {
  if (listener) return listener(message)
  // no layout mounted (the boot error page): the bare region, if any
  const region = document.getElementById('announcer')
  if (!region) return
  region.textContent = ''
  setTimeout(() => (region.textContent = message), 30)
}
