import { EmptyState } from '../ui/parts'

export function NotYet({ what }: { what: string }) {
  return (
    <EmptyState title="Not available yet">
      {what} are not available on this server yet. This page starts working as soon as the server offers them; nothing needs to change here.
    </EmptyState>
  )
}
