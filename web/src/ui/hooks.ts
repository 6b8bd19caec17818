import { useCallback, useEffect, useRef, useState } from 'react'
import { ApiError } from '../api/client'

export interface Loaded<T> {
  data?: T
  error?: string
  /** the HTTP status of the failure (0: no answer): a 404 is not worth a "Try again" */
  status?: number
  loading: boolean
  reload: () => void
}

/** Load, show, act: runs `load` whenever `deps` change and keeps the latest answer only. */
export function useLoad<T>(load: () => Promise<T>, deps: unknown[]): Loaded<T> {
  const [state, setState] = useState<{ data?: T; error?: string; status?: number; loading: boolean }>({ loading: true })
  const [tick, setTick] = useState(0)
  const seq = useRef(0)
  useEffect(() => {
    const mine = ++seq.current
    setState((s) => ({ ...s, loading: true, error: undefined, status: undefined }))
    load().then(
      (data) => mine === seq.current && setState({ data, loading: false }),
      (err: Error) => mine === seq.current && setState({ error: err.message, status: err instanceof ApiError ? err.status : undefined, loading: false }),
    )
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [...deps, tick])
  const reload = useCallback(() => setTick((t) => t + 1), [])
  return { ...state, reload }
}

/** `value` once it has stayed the same for `ms`: a search typed letter by letter asks the server once. */
export function useSettled<T>(value: T, ms: number): T {
  const [settled, setSettled] = useState(value)
  useEffect(() => {
    const timer = window.setTimeout(() => setSettled(value), ms)
    return () => window.clearTimeout(timer)
  }, [value, ms])
  return settled
}

/** A submit handler that tracks busy/error and shows the API's message when it refuses. */
export function useAction() {
  const [busy, setBusy] = useState(false)
  const [error, setError] = useState<string>()
  const run = useCallback(async (fn: () => Promise<unknown>): Promise<boolean> => {
    setBusy(true)
    setError(undefined)
    try {
      await fn()
      return true
    } catch (err) {
      setError((err as Error).message)
      return false
    } finally {
      setBusy(false)
    }
  }, [])
  return { busy, error, setError, run }
}
