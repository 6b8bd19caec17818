/*
 * CSV both ways (RFC 4180). Writing neutralises formula injection: a spreadsheet runs a cell that
 * starts with = + - @ (or a tab or CR, which some strip first) as a formula, so such cells get a
 * leading apostrophe, which spreadsheets show as text. Reading Kurz's own export takes exactly
 * that apostrophe off again (unguardCell), so an export imports back unchanged. A value that
 * itself starts with apostrophes before such a character gets one more, so the reader never takes
 * off one that was the value's own.
 */

const FORMULA_START = /^'*[=+\-@\t\r]/
const GUARDED = /^'+[=+\-@\t\r]/
const NEEDS_QUOTES = /[",\r\n]|^\s|\s$/

/** One cell: null/undefined empty, text neutralised and quoted where needed. */
export function csvCell(value: string | number | boolean | null | undefined): string {
  if (value === null || value === undefined) return ''
  if (typeof value === 'number' || typeof value === 'boolean') return String(value)
  const text = FORMULA_START.test(value) ? `'${value}` : value
  return NEEDS_QUOTES.test(text) ? `"${text.replace(/"/g, '""')}"` : text
}

/** A cell as csvCell wrote it, without the apostrophe it put before a formula character; any other cell as it is. */
export function unguardCell(cell: string): string {
  return GUARDED.test(cell) ? cell.slice(1) : cell
}

/** One record, CRLF-terminated as RFC 4180 has it. */
export function csvLine(cells: (string | number | boolean | null | undefined)[]): string {
  return `${cells.map(csvCell).join(',')}\r\n`
}

export interface CsvRecord {
  /** line of the file where the record starts (1 = the first line) */
  line: number
  cells: string[]
}

/** The delimiter of the first line: comma, semicolon (European spreadsheets) or tab, whichever appears most outside quotes. */
function sniffDelimiter(text: string): string {
  const end = text.search(/\r?\n/)
  const first = (end < 0 ? text : text.slice(0, end)).replace(/"[^"]*"/g, '')
  const counts = [',', ';', '\t'].map((d) => [d, first.split(d).length - 1] as const)
  counts.sort((a, b) => b[1] - a[1])
  return counts[0][1] > 0 ? counts[0][0] : ','
}

/**
 * Records of a CSV text, lazily (a caller can stop or yield between them). Quoted fields may hold
 * delimiters, doubled quotes and line breaks; a BOM is dropped; blank lines are skipped.
 */
export function* parseCsv(input: string): Generator<CsvRecord> {
  const text = input.charCodeAt(0) === 0xfeff ? input.slice(1) : input
  const delimiter = sniffDelimiter(text)
  let i = 0
  let line = 1
  const n = text.length
  while (i < n) {
    const start = line
    const cells: string[] = []
    let cell = ''
    let quoted = false
    let fieldStart = true
    for (;;) {
      if (i >= n) {
        cells.push(cell)
        break
      }
      const c = text[i]
      if (quoted) {
        if (c === '"') {
          if (text[i + 1] === '"') {
            cell += '"'
            i += 2
          } else {
            quoted = false
            i++
          }
        } else {
          if (c === '\n') line++
          cell += c
          i++
        }
        continue
      }
      if (c === '"' && fieldStart) {
        quoted = true
        fieldStart = false
        i++
        continue
      }
      if (c === delimiter) {
        cells.push(cell)
        cell = ''
        fieldStart = true
        i++
        continue
      }
      if (c === '\r' || c === '\n') {
        cells.push(cell)
        i += c === '\r' && text[i + 1] === '\n' ? 2 : 1
        line++
        break
      }
      cell += c
      fieldStart = false
      i++
    }
    if (cells.length === 1 && cells[0].trim() === '') continue
    yield { line: start, cells }
  }
}
