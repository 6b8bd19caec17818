import { createContext, useCallback, useContext, useRef, useState, type ReactNode } from 'react'
import { Modal } from './parts'

interface Ask {
  title: string
  message: ReactNode
  confirm: string
}
type Confirm = (ask: Ask) => Promise<boolean>

const ConfirmContext = createContext<Confirm>(async () => false)

/** Every destructive action goes through this: a modal that names what will happen. */
export function ConfirmProvider({ children }: { children: ReactNode }) {
  const [ask, setAsk] = useState<Ask>()
  const resolver = useRef<(v: boolean) => void>(undefined)
  const confirm = useCallback<Confirm>(
    (a) =>
      new Promise<boolean>((resolve) => {
        resolver.current = resolve
        setAsk(a)
      }),
    [],
  )
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
            Cancel
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
