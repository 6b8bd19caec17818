import { useEffect, useRef, useState } from 'react'
import { NavLink, Outlet, useLocation } from 'react-router'
import { useSession } from '../session'
import { focusPageTitle } from './focus'
import { StatusMessage } from './StatusMessage'

const MAIN = [
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

export function Layout() {
  const { user } = useSession()
  const location = useLocation()
  const [menuOpen, setMenuOpen] = useState(false)
  const shown = useRef(location.pathname)
  const menuButton = useRef<HTMLButtonElement>(null)

  // a route change closes the small-screen menu and moves focus to the new page's heading
  // (not on the first page: a fresh load starts at the top, skip link first). The heading shows a
  // focus ring only when the visitor uses the keyboard: a click or a redirect draws none.
  useEffect(() => {
    setMenuOpen(false)
    if (shown.current === location.pathname) return
    shown.current = location.pathname
    requestAnimationFrame(focusPageTitle)
  }, [location.pathname])

  // Escape closes the small-screen menu and gives focus back to its button (a dialog's Escape is its own)
  useEffect(() => {
    if (!menuOpen) return
    const onKey = (e: KeyboardEvent) => {
      if (e.key !== 'Escape' || e.defaultPrevented || document.querySelector('dialog[open]')) return
      setMenuOpen(false)
      menuButton.current?.focus()
    }
    document.addEventListener('keydown', onKey)
    return () => document.removeEventListener('keydown', onKey)
  }, [menuOpen])

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
        <button ref={menuButton} type="button" className="ghost menu-toggle" aria-expanded={menuOpen} aria-controls="sidenav" onClick={() => setMenuOpen((o) => !o)}>
          Menu
        </button>
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
      <nav id="sidenav" className={`sidenav ${menuOpen ? 'open' : ''}`} aria-label="Dashboard">
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

