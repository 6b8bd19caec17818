import { useRouteError } from 'react-router'
import { PageHead } from './parts'

/**
 * A page's code that did not arrive: the server was down, or Kurz was updated while the tab was
 * open and the chunk file it asks for is gone. Chromium, Firefox and Safari word it differently;
 * Vite's preload helper adds its own.
 */
const CHUNK_FAILED = /dynamically imported module|importing a module script failed|unable to preload/i

/**
 * What a route shows when it fails (the routes' error element): a page inside the layout, so the
 * navigation and Sign out stay, instead of React Router's developer screen. The layout moves focus
 * to its heading like any page's; the sentence is an alert, so screen readers say it too.
 */
export function RouteError() {
  const error = useRouteError()
  const chunk = error instanceof Error && CHUNK_FAILED.test(error.message)
  return (
    <>
      <PageHead title={chunk ? 'This page could not be loaded' : 'Something went wrong'} />
      <div className="card route-error" role="alert">
        <p>
          {chunk
            ? 'Perhaps Kurz was updated since this tab was opened, or the server could not be reached: reloading fetches the page again.'
            : 'This page stopped with an error; reloading the dashboard usually clears it.'}
        </p>
        <button type="button" onClick={() => window.location.reload()}>
          Reload
        </button>
      </div>
    </>
  )
}
