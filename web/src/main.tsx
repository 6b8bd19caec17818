import { StrictMode } from 'react'
import { createRoot } from 'react-dom/client'
import { createBrowserRouter, RouterProvider } from 'react-router'
import { api, setCsrfToken, signInPath } from './api/client'
import type { Session } from './api/types'
import { LiveSession } from './session'
import { ConfirmProvider } from './ui/confirm'
import { routes } from './routes'
import './ui/styles.css'

const root = createRoot(document.getElementById('root')!)

async function start() {
  let session: Session
  try {
    session = await api.get<Session>('/api/session')
  } catch (err) {
    root.render(
      <main className="boot-error">
        <h1>The dashboard could not start</h1>
        <p>{(err as Error).message}</p>
        <p>
          <a href={signInPath()}>Sign in again</a>
        </p>
      </main>,
    )
    return
  }
  setCsrfToken(session.csrfToken)
  const router = createBrowserRouter(routes, { basename: '/dashboard' })
  root.render(
    <StrictMode>
      <LiveSession initial={session}>
        <ConfirmProvider>
          <RouterProvider router={router} />
        </ConfirmProvider>
      </LiveSession>
    </StrictMode>,
  )
}
void start()
