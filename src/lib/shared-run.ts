/**
 * One run per key at a time: a caller asking for `key` while its run is under way gets the same
 * promise instead of starting the work again; the key is free again once the run settles.
 */
export function sharedRun<K, V>(running: Map<K, Promise<V>>, key: K, start: () => Promise<V>): Promise<V> {
  let p = running.get(key)
  if (!p) {
    p = start().finally(() => running.delete(key))
    running.set(key, p)
  }
  return p
}
