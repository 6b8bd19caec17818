import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { brotliCompressSync, constants, gzipSync } from 'node:zlib'
import { defineConfig, type Plugin } from 'vite'
import react from '@vitejs/plugin-react'

/**
 * A `.br` and a `.gz` beside each script and stylesheet, compressed once at build time at the best
 * levels; the server sends one to a browser that accepts it (src/dashboard/static.ts). The app's
 * script is about 620 KB as built and a third of that or less compressed, and neither a bare
 * `npm start` nor a default nginx compresses JavaScript on the way.
 */
function precompressed(): Plugin {
  return {
    name: 'kurz-precompressed',
    apply: 'build',
    writeBundle(options, bundle) {
      for (const name of Object.keys(bundle)) {
        if (!/\.(js|css|svg)$/.test(name)) continue
        const file = join(options.dir!, name)
        const raw = readFileSync(file)
        writeFileSync(`${file}.br`, brotliCompressSync(raw, { params: { [constants.BROTLI_PARAM_QUALITY]: 11, [constants.BROTLI_PARAM_SIZE_HINT]: raw.length } }))
        writeFileSync(`${file}.gz`, gzipSync(raw, { level: 9 }))
      }
    },
  }
}

// The dashboard SPA (web/) is built into dist/web and served by Fastify under /dashboard/.
export default defineConfig({
  root: 'web',
  base: '/dashboard/',
  plugins: [react(), precompressed()],
  build: {
    outDir: '../dist/web',
    emptyOutDir: true,
    assetsDir: 'assets',
    // one stylesheet file: the CSP allows style-src 'self' only, no inline <style>
    cssCodeSplit: false,
    modulePreload: { polyfill: false },
    sourcemap: false,
    chunkSizeWarningLimit: 900,
  },
})
