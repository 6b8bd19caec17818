#!/usr/bin/env node
// npm run check:structure – two rules of the codebase a reviewer should not have to check by eye:
//   1. no import cycle between folders under src/ (a folder is a top-level folder such as
//      src/redirect, each resource such as src/resources/links, or a single file at src/'s root);
//   2. no file under src/ over MAX_LINES, unless ALLOWED below says why its size is earned.
// Type-only imports count: a cycle of types is still two folders that cannot be read apart.
import { readFileSync } from 'node:fs'
import { join, relative, sep } from 'node:path'
import { fileURLToPath } from 'node:url'
import madge from 'madge'

const root = join(fileURLToPath(import.meta.url), '..', '..')
const src = join(root, 'src')
const MAX_LINES = 400

/** path under src/ → one line saying why it may be longer than MAX_LINES */
const ALLOWED = {}

/** The folder a module belongs to, for the folder graph. */
function folderOf(file) {
  const parts = file.split(/[\\/]/)
  if (parts.length === 1) return parts[0]
  if (parts[0] === 'resources' && parts.length > 2) return `resources/${parts[1]}`
  return parts[0]
}

/** Strongly connected components with more than one folder (Tarjan). */
function cycles(graph) {
  let index = 0
  const idx = new Map()
  const low = new Map()
  const stack = []
  const onStack = new Set()
  const out = []
  const visit = (v) => {
    idx.set(v, index)
    low.set(v, index++)
    stack.push(v)
    onStack.add(v)
    for (const w of graph.get(v) ?? []) {
      if (!idx.has(w)) {
        visit(w)
        low.set(v, Math.min(low.get(v), low.get(w)))
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v), idx.get(w)))
    }
    if (low.get(v) === idx.get(v)) {
      const scc = []
      let w
      do {
        w = stack.pop()
        onStack.delete(w)
        scc.push(w)
      } while (w !== v)
      if (scc.length > 1) out.push(scc.sort())
    }
  }
  for (const v of graph.keys()) if (!idx.has(v)) visit(v)
  return out
}

const result = await madge(src, {
  fileExtensions: ['ts', 'tsx', 'mts', 'js', 'mjs'],
  tsConfig: join(root, 'tsconfig.json'),
  detectiveOptions: { ts: { skipTypeImports: false }, tsx: { skipTypeImports: false } },
})
const files = result.obj()
let failed = false

// 1. the folder graph, with the file imports behind each edge
const graph = new Map()
const because = new Map()
for (const [file, deps] of Object.entries(files)) {
  const from = folderOf(file)
  if (!graph.has(from)) graph.set(from, new Set())
  for (const dep of deps) {
    const to = folderOf(dep)
    if (to === from) continue
    graph.get(from).add(to)
    const key = `${from} -> ${to}`
    if (!because.has(key)) because.set(key, [])
    because.get(key).push(`${file} imports ${dep}`)
  }
}
for (const scc of cycles(graph)) {
  failed = true
  const members = new Set(scc)
  console.error(`Import cycle between folders: ${scc.map((f) => `src/${f}`).join(', ')}`)
  for (const [key, why] of because) {
    const [from, to] = key.split(' -> ')
    if (members.has(from) && members.has(to)) console.error(`  ${key}: ${why.slice(0, 3).join('; ')}${why.length > 3 ? ` (+${why.length - 3} more)` : ''}`)
  }
}
// a package (a bare specifier madge resolves for .ts files but not for .mjs ones) is never a folder of src/
const skipped = result.warnings().skipped.filter((s) => s.startsWith('.') || s.startsWith('/'))
if (skipped.length) console.error(`Imports madge could not resolve (not checked): ${skipped.join(', ')}`)

// 2. file sizes
for (const file of Object.keys(files).sort()) {
  const lines = readFileSync(join(src, file), 'utf8').split('\n').length - 1
  const key = file.split(sep).join('/')
  if (lines > MAX_LINES && !ALLOWED[key]) {
    failed = true
    console.error(`src/${key} has ${lines} lines (most ${MAX_LINES}): split it, or add it to ALLOWED in ${relative(root, fileURLToPath(import.meta.url))} with the reason`)
  }
}
for (const key of Object.keys(ALLOWED)) {
  if (!files[key]) console.error(`ALLOWED lists src/${key}, which no longer exists: remove the entry`)
}

if (failed) process.exit(1)
console.log(`check:structure: ${Object.keys(files).length} modules, ${graph.size} folders, no folder cycle, no file over ${MAX_LINES} lines`)
