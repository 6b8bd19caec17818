/*
 * A QR code's colours (DECISIONS §7): how they are written and whether a scanner can tell them
 * apart. A pure module: the API (qr/render.ts) and the dashboard's designer use this one rule.
 */

export interface Rgb {
  r: number
  g: number
  b: number
}

const RGB = /^rgba?\(\s*(\d{1,3})\s*,\s*(\d{1,3})\s*,\s*(\d{1,3})\s*(?:,\s*(?:1|1\.0+)\s*)?\)$/i
const HEX = /^#?([0-9a-f]{3}|[0-9a-f]{6})$/i

/** `rgb(r,g,b)` (spaces allowed, each 0–255) or `#rgb` / `#rrggbb` → Rgb; null when invalid. */
export function parseColour(input: string): Rgb | null {
  const s = input.trim()
  const m = RGB.exec(s)
  if (m) {
    const [r, g, b] = m.slice(1, 4).map(Number)
    return r <= 255 && g <= 255 && b <= 255 ? { r, g, b } : null
  }
  const h = HEX.exec(s)
  if (h) {
    const hex = h[1].length === 3 ? [...h[1]].map((c) => c + c).join('') : h[1]
    return { r: parseInt(hex.slice(0, 2), 16), g: parseInt(hex.slice(2, 4), 16), b: parseInt(hex.slice(4, 6), 16) }
  }
  return null
}

function luminance({ r, g, b }: Rgb): number {
  const lin = (v: number) => {
    const s = v / 255
    return s <= 0.03928 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4
  }
  return 0.2126 * lin(r) + 0.7152 * lin(g) + 0.0722 * lin(b)
}

/** WCAG contrast ratio, 1 (same) to 21 (black on white). */
export function contrastRatio(a: Rgb, b: Rgb): number {
  const [hi, lo] = [luminance(a), luminance(b)].sort((x, y) => y - x)
  return (hi + 0.05) / (lo + 0.05)
}

/** Below this a phone camera cannot tell the modules from the background. */
export const MIN_CONTRAST = 2

/** True when the API refuses these colours as too alike to scan; false when one is not a colour (refused apart). */
export function lowContrast(foreground: string, background: string): boolean {
  const [fg, bg] = [parseColour(foreground), parseColour(background)]
  return !!fg && !!bg && contrastRatio(fg, bg) < MIN_CONTRAST
}
