import { toTimestamp } from '../../http/format.js'
import type { overlayResponses } from '../../db/schema/index.js'
import type { Page } from './repo.js'

export const DEFAULT_COUNTDOWN = 5
export const DEFAULT_POSITION = 'bottom-left'

/** The overlay `settings` column: what an overlay shows, stored as one JSON value. */
export interface OverlaySettings {
  position?: 'bottom-left' | 'bottom-right' | 'top' | 'bottom' | 'center'
  background?: string
  color?: string
  buttonBackground?: string
  buttonColor?: string
  options?: string[]
}

/** SPEC.md list items. */
export const presentSplashItem = (p: Page) => ({ id: p.id, name: p.name, date: toTimestamp(p.createdAt) })
export const presentOverlayItem = (p: Page) => ({ id: p.id, type: p.overlayType ?? 'message', name: p.name, date: toTimestamp(p.createdAt) })

/** (extension) one splash page with every field, in the names its add/update bodies use. */
export function presentSplash(p: Page) {
  return {
    id: p.id,
    name: p.name,
    title: p.title ?? '',
    message: p.message ?? '',
    image: p.imageUrl ?? '',
    button: p.buttonLabel ?? '',
    countdown: p.countdown ?? DEFAULT_COUNTDOWN,
    date: toTimestamp(p.createdAt),
  }
}

/** (extension) one overlay with every field, in the names its add/update bodies use. */
export function presentOverlay(p: Page) {
  const s = p.settings as OverlaySettings
  return {
    id: p.id,
    type: p.overlayType ?? 'message',
    name: p.name,
    title: p.title ?? '',
    message: p.message ?? '',
    button: p.buttonLabel ?? '',
    buttonurl: p.buttonUrl ?? '',
    position: s.position ?? DEFAULT_POSITION,
    background: s.background ?? '',
    color: s.color ?? '',
    buttonbackground: s.buttonBackground ?? '',
    buttoncolor: s.buttonColor ?? '',
    options: s.options ?? [],
    date: toTimestamp(p.createdAt),
  }
}

/** (extension) a contact-form submission or poll vote, for the overlay's owner. */
export function presentResponse(r: typeof overlayResponses.$inferSelect) {
  return { id: r.id, link: r.linkId, ...r.data, date: toTimestamp(r.createdAt) }
}
