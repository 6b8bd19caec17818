import { api } from '../api/client'
import type { Qr } from '../api/types'
import { announce } from '../ui/announce'
import { useAction } from '../ui/hooks'
import { Modal } from '../ui/parts'
import { QrDesigner, type QrDesign, type QrSubmit } from './QrDesigner'

export interface QrEditing {
  qr: Qr
  /** what the code was made from (GET /api/qr/:id/design) */
  design: QrDesign
}

/**
 * The designer in a dialog, from the list and from a code's page: a new code (POST /api/qr/add),
 * or a saved one started from its design (PUT /api/qr/:id/update).
 */
export function QrDesignDialog(props: { open: boolean; editing?: QrEditing; onClose: () => void; onSaved: () => void }) {
  return (
    <Modal title={props.editing ? `Edit ${props.editing.qr.name}` : 'New QR code'} open={props.open} onClose={props.onClose} wide>
      {/* the dialog mounts its content per opening: no error or busy state is left from the last one */}
      <DesignForm key={props.editing?.qr.id ?? 'new'} editing={props.editing} onClose={props.onClose} onSaved={props.onSaved} />
    </Modal>
  )
}

function DesignForm({ editing, onClose, onSaved }: { editing?: QrEditing; onClose: () => void; onSaved: () => void }) {
  const save = useAction()
  async function onSubmit(v: QrSubmit) {
    if (await save.run(() => (editing ? api.put(`/api/qr/${editing.qr.id}/update`, v) : api.post('/api/qr/add', v)))) {
      announce(editing ? 'QR code saved.' : 'QR code created.')
      onSaved()
    }
  }
  return <QrDesigner initial={editing?.design} busy={save.busy} error={save.error} onSubmit={onSubmit} onCancel={onClose} />
}
