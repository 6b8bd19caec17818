/**
 * The cache keys a link is held under: its alias, and each earlier alias a visit used (alias
 * history). One key as a plain string (nearly every link), several as an array: no Set per cached link.
 */
export class AliasKeys {
  private readonly byId = new Map<number, string | string[]>()

  /** A link's key, or its keys when it has several; undefined when it is not held. */
  get(linkId: number): string | readonly string[] | undefined {
    return this.byId.get(linkId)
  }

  add(linkId: number, key: string) {
    const keys = this.byId.get(linkId)
    if (keys === undefined) this.byId.set(linkId, key)
    else if (typeof keys === 'string') {
      if (keys !== key) this.byId.set(linkId, [keys, key])
    } else if (!keys.includes(key)) keys.push(key)
  }

  remove(linkId: number, key: string) {
    const keys = this.byId.get(linkId)
    if (keys === key) this.byId.delete(linkId)
    else if (Array.isArray(keys)) {
      const rest = keys.filter((k) => k !== key)
      if (rest.length === 0) this.byId.delete(linkId)
      else this.byId.set(linkId, rest.length === 1 ? rest[0] : rest)
    }
  }

  drop(linkId: number) {
    this.byId.delete(linkId)
  }

  clear() {
    this.byId.clear()
  }
}
