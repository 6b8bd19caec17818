/** `p` must reject with an error of `type`; returns that error so the test can look at it. Kept apart from app.ts so unit tests need no app. */
export async function rejectionOf<E extends Error>(p: Promise<unknown>, type: abstract new (...args: never[]) => E, what: string): Promise<E> {
  try {
    await p
  } catch (err) {
    if (err instanceof type) return err
    throw err
  }
  throw new Error(what)
}
