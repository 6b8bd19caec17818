import { createContext, useContext, useEffect, useState, type ReactNode } from 'react'
import { api, setCsrfToken } from './api/client'
import type { Session } from './api/types'

export const SessionContext = createContext<Session | null>(null)

export function useSession(): Session {
  const s = useContext(SessionContext)
  if (!s) throw new Error('no session')
  return s
}

/** A tab coming back reads the session again at most this often. */
const REREAD_MS = 30_000

/**
 * Provides the session read at start, and reads it again when the tab comes back into view: an
 * administrator may have moved the account to another plan meanwhile, and the pages should offer
 * what the new plan allows without a reload. A failed read keeps the session the page has (a
 * session that ended sends the page to the sign-in form, as any request does).
 */
export function LiveSession({ initial, children }: { initial: Session; children: ReactNode }) {
  const [session, setSession] = useState(initial)
  useEffect(() => {
    let readAt = Date.now()
    const reread = () => {
      if (document.visibilityState !== 'visible' || Date.now() - readAt < REREAD_MS) return
      readAt = Date.now()
      api.get<Session>('/api/session').then(
        (s) => {
          setCsrfToken(s.csrfToken)
          // a new object only when something changed: every page reading the session renders again
          setSession((old) => (JSON.stringify(old) === JSON.stringify(s) ? old : s))
        },
        () => {},
      )
    }
    document.addEventListener('visibilitychange', reread)
    return () => document.removeEventListener('visibilitychange', reread)
  }, [])
  return <SessionContext.Provider value={session}>{children}</SessionContext.Provider>
}
