/** Saves a data:/blob: URL as a file through a temporary link (no navigation, no popup). */
export function download(href: string, filename: string) {
  const a = document.createElement('a')
  a.href = href
  a.download = filename
  document.body.append(a)
  a.click()
  a.remove()
  if (href.startsWith('blob:')) setTimeout(() => URL.revokeObjectURL(href), 10_000)
}
