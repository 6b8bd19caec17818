/** One polite live region for short confirmations ("Link created", "Copied to the clipboard"). */
export function announce(message: string) {
  const region = document.getElementById('announcer')
  if (!region) return
  region.textContent = ''
  // a new text node after a clear makes screen readers speak repeated messages too
  setTimeout(() => (region.textContent = message), 30)
}
