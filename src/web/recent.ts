/**
 * A bounded cache of what was made last (rendered pages' parts, diffs): at most `limit` entries, the least recently
 * used one dropped first. Keys name immutable inputs (object ids), so an entry never goes stale.
 */
export class Recent<V> {
  readonly #entries = new Map<string, V>();
  readonly #limit: number;

  constructor(limit: number) {
    this.#limit = limit;
  }

  /** The value kept for `key` (now the most recent), or undefined. */
  get(key: string): V | undefined {
    if (!this.#entries.has(key)) return undefined;
    const value = this.#entries.get(key)!;
    this.#entries.delete(key);
    this.#entries.set(key, value);
    return value;
  }

  /** The value kept for `key`, made by `make` when there is none. */
  getOrMake(key: string, make: () => V): V {
    const kept = this.get(key);
    if (kept !== undefined) return kept;
    const value = make();
    this.#entries.set(key, value);
    if (this.#entries.size > this.#limit) this.#entries.delete(this.#entries.keys().next().value!);
    return value;
  }

  forget(key: string): void {
    this.#entries.delete(key);
  }
}
