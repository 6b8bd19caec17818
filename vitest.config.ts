import { defineConfig } from 'vitest/config'

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // expect.poll gives up after 1 s by default; a page load on a loaded CI machine can take longer than that.
    expect: { poll: { timeout: 10_000 } },
    // each test file runs its PGlite in a worker thread of its own; two cores here, so keep the pool small.
    pool: 'forks',
    maxWorkers: 2,
  },
})
