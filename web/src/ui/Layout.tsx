import { useEffect, useRef } from 'react'
import { NavLink, Outlet, useLocation } from 'react-router'
import { useSession } from '../session'
import { focusPageTitle } from './focus'
import { StatusMessage } from './StatusMessage'

const MAIN = [
  ['overview', 'Overview'],
  ['links', 'Links'],
  ['qr', 'QR codes'],
  ['domains', 'Domains'],
  ['campaigns', 'Campaigns'],
  ['channels', 'Channels'],
  ['pixels', 'Pixels'],
  ['pages', 'Pages'],
  ['webhooks', 'Webhooks'],
  ['import-export', 'Import/export'],
  ['account', 'Account'],
] as const
const ADMIN = [
  ['admin/users', 'Users'],
  ['admin/plans', 'Plans'],
  ['admin/blocklist', 'Blocklist'],
] as const

/** The index route's path (it redirects), and what `shown` holds when the app started there. */
const INDEX = '/'
const FIRST_INDEX = 'first load at the index'

export function Layout() {
  const { user } = useSession()
  const location = useLocation()
  const shown = useRef(location.pathname === INDEX ? FIRST_INDEX : location.pathname)
  const nav = useRef<HTMLElement>(null)

  // a route change moves focus to the new page's heading (not on the first page: a fresh load
  // starts at the top, skip link first). The heading shows a focus ring only when the visitor uses
  // the keyboard: a click or a redirect draws none. The index (/dashboard, where SSO and /login
  // land) only redirects to the links: the page it lands on is the first page shown.
  useEffect(() => {
    if (location.pathname === INDEX) return
    const from = shown.current
    shown.current = location.pathname
    if (from === location.pathname || from === FIRST_INDEX) return
    requestAnimationFrame(focusPageTitle)
  }, [location.pathname])

  // on a narrow screen the navigation is a strip that scrolls sideways: the current page's link is
  // brought to its middle. Only the strip scrolls (never the window, as scrollIntoView would).
  useEffect(() => {
    const strip = nav.current
    const current = strip?.querySelector('a.active')
    if (!strip || !current || strip.scrollWidth <= strip.clientWidth) return
    const s = strip.getBoundingClientRect()
    const c = current.getBoundingClientRect()
    strip.scrollLeft += c.left - s.left - (s.width - c.width) / 2
  }, [location.pathname])

  return (
    <div className="shell">
      <a className="skip" href="#main">
        Skip to content
      </a>
      <header className="topbar">
        <a className="brand" href="/dashboard/links">
          <span className="logo" aria-hidden="true">
            K
          </span>
          Kurz
        </a>
        <div className="who">
          <span className="who-name">{user.username}</span>
          <span className="badge plain">{user.admin ? 'Admin' : user.plan.name}</span>
          <form method="post" action="/logout">
            <button type="submit" className="ghost small">
              Sign out
            </button>
          </form>
        </div>
      </header>
      <nav ref={nav} id="sidenav" className="sidenav" aria-label="Dashboard">
        <ul>
          {MAIN.map(([to, label]) => (
            <li key={to}>
              <NavLink to={`/${to}`}>{label}</NavLink>
            </li>
          ))}
        </ul>
        {user.admin && (
          <>
            <p className="nav-group" aria-hidden="true">
              Admin
            </p>
            <ul>
              {ADMIN.map(([to, label]) => (
                <li key={to}>
                  <NavLink to={`/${to}`}>{label}</NavLink>
                </li>
              ))}
            </ul>
          </>
        )}
      </nav>
      <main id="main" tabIndex={-1}>
        <Outlet />
      </main>
      <StatusMessage />
    </div>
  )
}

