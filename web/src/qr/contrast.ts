/**
 * The API's rule for a QR code's colours (src/resources/qr/render.ts, applied by POST /api/qr/add
 * and PUT /api/qr/:id/update): their WCAG contrast ratio must be at least MIN_CONTRAST, or a phone
 * camera cannot tell the modules from the background. Written out again here because render.ts
 * pulls in the image renderer; a test holds the two to the same numbers.
 */
export const MIN_CONTRAST = 2

type Rgb = [number, number, number]

/** `#rrggbb` or `#rgb` (what a colour input holds); null otherwise. */
function rgbOf(hex: string): Rgb | null {
  const m = /^#?([0-9a-f]{3}|[0-9a-f]{6})$/i.exec(hex.trim())
  if (!m) return null
  const h = m[1].length === 3 ? [...m[1]].map((c) => c + c).join('') : m[1]
  return [0, 2, 4].map((i) => parseInt(h.slice(i, i + 2), 16)) as Rgb
}

function luminance([r, g, b]: Rgb): number {
  const lin = (v: number) => {
    const s = v / 255
    return s <= 0.03928 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4
  }
  return 0.2126 * lin(r) + 0.7152 * lin(g) + 0.0722 * lin(b)
}

/** WCAG contrast ratio of two colours, 1 (same) to 21 (black on white); NaN when one is not a colour. */
export function contrastRatio(a: string, b: string): number {
  const [x, y] = [rgbOf(a), rgbOf(b)]
  if (!x || !y) return NaN
  const [hi, lo] = [luminance(x), luminance(y)].sort((p, q) => q - p)
  return (hi + 0.05) / (lo + 0.05)
}

/** True when the API would refuse these colours as too alike to scan. */
export const lowContrast = (foreground: string, background: string) => contrastRatio(foreground, background) < MIN_CONTRAST
