/**
 * Polls until `check` holds: for effects that travel asynchronously (a flush, a Redis message to
 * another instance). Fails naming what never happened; `tries` × 25 ms is the patience.
 */
export async function eventually(check: () => Promise<boolean> | boolean, what: string, tries = 200): Promise<void> {
  for (let i = 0; i < tries; i++) {
    if (await check()) return
    await new Promise((r) => setTimeout(r, 25))
  }
  throw new Error(`never happened: ${what}`)
}
