import { defineConfig } from 'vite'
import react from '@vitejs/plugin-react'

// The dashboard SPA (web/) is built into dist/web and served by Fastify under /dashboard/.
export default defineConfig({
  root: 'web',
  base: '/dashboard/',
  plugins: [react()],
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
