import { createContext, useCallback, useContext, useRef, useState, type ReactNode } from 'react'
import { focusPageTitle, moveFocus } from './focus'
import { Modal } from './parts'

interface Ask {
  title: string
  message: ReactNode
  confirm: string
  /** the button that keeps things as they are: "Cancel" unless told ("Keep editing") */
  cancel?: string
}
type Confirm = (ask: Ask) => Promise<boolean>

const ConfirmContext = createContext<Confirm>(async () => false)

/** Every destructive action goes through this: a modal that names what will happen. */
export function ConfirmProvider({ children }: { children: ReactNode }) {
  const [ask, setAsk] = useState<Ask>()
  const resolver = useRef<(v: boolean) => void>(undefined)
  const confirm = useCallback<Confirm>((a) => {
    const trigger = document.activeElement
    return new Promise<boolean>((resolve) => {
      resolver.current = (yes) => {
        if (yes && trigger instanceof HTMLElement && trigger !== document.body) keepFocusNear(trigger)
        resolve(yes)
      }
      setAsk(a)
    })
  }, [])
  const close = (v: boolean) => {
    resolver.current?.(v)
    resolver.current = undefined
    setAsk(undefined)
  }
  return (
    <ConfirmContext.Provider value={confirm}>
      {children}
      <Modal title={ask?.title ?? ''} open={!!ask} onClose={() => close(false)}>
        <div className="confirm-message">{ask?.message}</div>
        <div className="actions">
          <button type="button" className="secondary" onClick={() => close(false)} data-autofocus>
            {ask?.cancel ?? 'Cancel'}
          </button>
          <button type="button" className="danger" onClick={() => close(true)}>
            {ask?.confirm}
          </button>
        </div>
      </Modal>
    </ConfirmContext.Provider>
  )
}

export const useConfirm = () => useContext(ConfirmContext)

/** A list's item: a row, a list entry or a card. */
const ITEM = 'tr, li, section'
const FOCUSABLE = 'a[href], button:not([disabled]), input:not([disabled]):not([type=hidden]), select:not([disabled]), textarea:not([disabled]), [tabindex]:not([tabindex="-1"])'

/**
 * After a confirmed action, the button that asked may go with what it acted on (a deleted link's row),
 * which would drop focus on <body>: focus then moves to the next item of the same list (its link
 * first), else the previous one, else the page's heading. Focus the visitor moved meanwhile stays.
 */
function keepFocusNear(trigger: HTMLElement) {
  const item = trigger.closest<HTMLElement>(ITEM)
  const sibling = (el: Element | null | undefined) => (el && item && el.tagName === item.tagName && el.className === item.className ? el : null)
  const next = sibling(item?.nextElementSibling)
  const previous = sibling(item?.previousElementSibling)
  const watch = new MutationObserver(() => {
    if (trigger.isConnected) return
    stop()
    const active = document.activeElement
    if (active && active !== document.body && active.isConnected) return
    const neighbour = [next, previous].find((el) => el?.isConnected)
    const target = neighbour?.querySelector<HTMLElement>('a[href]') ?? neighbour?.querySelector<HTMLElement>(FOCUSABLE)
    if (!moveFocus(target)) focusPageTitle()
  })
  // the answer of a slow server still counts; a refused action leaves the trigger, and this ends
  const timer = window.setTimeout(() => stop(), 30_000)
  const stop = () => {
    watch.disconnect()
    window.clearTimeout(timer)
  }
  watch.observe(document.body, { childList: true, subtree: true })
}
