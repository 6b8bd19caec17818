import { useEffect, useRef, useState } from 'react'
import { createPortal } from 'react-dom'
import { useLocation } from 'react-router'
import { onAnnounce } from './announce'

/** How long a message stays on screen; hovering or focusing it holds it. */
const SHOWN_MS = 6000

/** The dialog on top, if one is open: a message shown behind its backdrop would be hidden and inert. */
const topDialog = () => [...document.querySelectorAll<HTMLDialogElement>('dialog[open]')].pop() ?? null

/**
 * The one status message of the dashboard (announce.ts): a small box at the bottom of the screen,
 * `role="status"`, so screen readers speak it too. It goes after a few seconds, when dismissed, when
 * the visitor opens another page, or when the next message replaces it. While a dialog is open it
 * shows inside that dialog.
 */
export function StatusMessage() {
  const [message, setMessage] = useState('')
  const [host, setHost] = useState<HTMLDialogElement | null>(null)
  const timers = useRef<{ show?: number; hide?: number }>({})
  const held = useRef(false)
  const shownAt = useRef(0)
  const { pathname } = useLocation()

  const hideLater = (ms = SHOWN_MS) => {
    window.clearTimeout(timers.current.hide)
    timers.current.hide = window.setTimeout(() => {
      if (!held.current) setMessage('')
    }, ms)
  }

  useEffect(() => {
    const stop = onAnnounce((text) => {
      window.clearTimeout(timers.current.show)
      window.clearTimeout(timers.current.hide)
      setMessage('')
      // a new text after a clear: screen readers speak a repeated message too. The host is chosen
      // then, after the action's own dialog (a form that closes on success) is gone.
      timers.current.show = window.setTimeout(() => {
        setHost(topDialog())
        setMessage(text)
        shownAt.current = Date.now()
        hideLater()
      }, 30)
    })
    return () => {
      stop()
      window.clearTimeout(timers.current.show)
      window.clearTimeout(timers.current.hide)
    }
  }, [])

  // the visitor moves on to another page: an older message goes (one an action navigated with, such
  // as "Link saved." on the way to the link's page, stays its time)
  useEffect(() => {
    if (Date.now() - shownAt.current > 3000) setMessage('')
  }, [pathname])

  // the dialog it shows in closes: it moves back to the page
  useEffect(() => {
    if (!host) return
    const back = () => setHost(null)
    host.addEventListener('close', back)
    return () => host.removeEventListener('close', back)
  }, [host])

  const hold = (on: boolean) => {
    held.current = on
    if (!on && message) hideLater(2500)
  }
  const dismiss = () => {
    held.current = false
    setMessage('')
    // the button goes with the message: focus stays in the page, not on <body>
    if (!host?.open) document.getElementById('main')?.focus()
  }
  const box = (
    <div
      className={`toast ${message ? '' : 'idle'}`}
      onMouseEnter={() => hold(true)}
      onMouseLeave={() => hold(false)}
      onFocus={() => hold(true)}
      onBlur={() => hold(false)}
    >
      <p id="announcer" role="status" className="toast-text">
        {message}
      </p>
      {message && (
        <button type="button" className="ghost small" aria-label="Dismiss message" onClick={dismiss}>
          ✕
        </button>
      )}
    </div>
  )
  return host && host.open ? createPortal(box, host) : box
}
