/**
 * What the owner of a quarantined link (`details.quarantined`, DECISIONS 10.6) needs to know: why
 * its visitors get a warning page (451) instead of the destination, and who can lift it. An edit
 * does not lift it, so the edit page says that too.
 */
export function QuarantineNote({ editing = false }: { editing?: boolean }) {
  return (
    <div className="note quarantine-note">
      <p>
        <strong>This link is quarantined.</strong> It matched this service's blocklist, so its visitors see a warning page instead of the destination.
      </p>
      <p>An administrator of this service can release it{editing ? '; saving changes here does not' : ''}. If you think this is a mistake, contact them.</p>
    </div>
  )
}
