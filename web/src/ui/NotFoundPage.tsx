import { Link } from 'react-router'
import { EmptyState, PageHead } from './parts'

export function NotFoundPage() {
  return (
    <>
      <PageHead title="Page not found" />
      <EmptyState title="There is no such page" action={<Link to="/links">Go to your links</Link>}>
        The address may be mistyped, or the page may have moved.
      </EmptyState>
    </>
  )
}
