import { useCallback, useRef, useState } from 'react'
import { cancelled } from '../api/client'
import { moveFocus } from '../ui/focus'
import { Loading } from '../ui/parts'

/**
 * An import or an export the visitor may stop. No time bound (a 20 MiB import may take minutes):
 * the visitor decides, with a Cancel button shown while it runs. The button that started it stays
 * focusable (aria-disabled, not disabled: a disabled button would drop the keyboard focus), and
 * focus on Cancel returns to it once the run ends, cancelled or not, since Cancel goes with the run.
 */
export function useCancellable(whenCancelled: string) {
  const [busy, setBusy] = useState(false)
  const [error, setError] = useState<string>()
  const [notice, setNotice] = useState<string>()
  const control = useRef<AbortController>(undefined)
  const start = useRef<HTMLButtonElement>(null)
  const stop = useRef<HTMLButtonElement>(null)

  const run = useCallback(
    async (fn: (signal: AbortSignal) => Promise<void>) => {
      if (control.current) return
      const c = new AbortController()
      control.current = c
      setBusy(true)
      setError(undefined)
      setNotice(undefined)
      try {
        await fn(c.signal)
      } catch (err) {
        if (cancelled(err, c.signal)) setNotice(whenCancelled)
        else setError((err as Error).message)
      } finally {
        control.current = undefined
        const at = document.activeElement
        if (at === stop.current || at === null || at === document.body) moveFocus(start.current)
        setBusy(false)
      }
    },
    [whenCancelled],
  )
  const cancel = useCallback(() => control.current?.abort(), [])
  return { busy, error, notice, run, cancel, start, stop }
}

/** What a running transfer shows beside its button: what it is doing, and its Cancel. */
export function Running({ what, cancelLabel, t }: { what: string; cancelLabel: string; t: ReturnType<typeof useCancellable> }) {
  if (!t.busy) return null
  return (
    <>
      <button type="button" className="secondary" ref={t.stop} onClick={t.cancel}>
        {cancelLabel}
      </button>
      <Loading what={what} />
    </>
  )
}

/** The sentence a cancelled transfer leaves, until the next one starts. */
export function CancelNotice({ t }: { t: ReturnType<typeof useCancellable> }) {
  if (!t.notice) return null
  return (
    <p className="note" role="status">
      {t.notice}
    </p>
  )
}
