/**
 * Provider mode: notices a new version of a leased app's secrets (docs/architecture.md, Secrets sealed to a lease)
 * without waiting for the resync. `set_secrets` moves a dynamic field of the Lease and emits no event the package's
 * push cursor would carry, so each poll reads the secrets pointers of every leased app at once (one chain read per
 * 50 leases: the fields' ids are derived, not looked up) and compares each with the version the app's Deployment
 * runs, and with the version a held build lacked a build secret at. An app whose Deployment runs another version, or
 * whose held build may now find its secret, is handed to `onChange` once per chain version: a pass that cannot act on
 * it yet (a build under way, a held revision) is not asked again every poll, and the resync remains the safety net.
 * Level-triggered, so a change made while the controller was down is found on its first poll.
 */

/** A leased app as the controller's caches hold it. */
export interface LeasedApp {
  /** The app's queue key (namespace/name). */
  key: string;
  lease: string;
  /** The secrets version its Deployment's pods name; 0 for none, null when it has no Deployment yet. */
  deployed: number | null;
  /** The version its head's build lacked a build secret at (reconcile/build-failure.ts heldForBuildSecrets), or null. */
  held: number | null;
}

export interface SecretsWatcherOptions {
  /** The current secrets version of each lease (0 or absent: none yet). */
  versions(leaseIds: readonly string[]): Promise<ReadonlyMap<string, number>>;
  onChange(app: LeasedApp, version: number): void;
}

export class SecretsWatcher {
  readonly #options: SecretsWatcherOptions;
  /** Per app, the chain version it was last handed over for. */
  readonly #handed = new Map<string, number>();

  constructor(options: SecretsWatcherOptions) {
    this.#options = options;
  }

  /**
   * Reads the versions of `apps`' leases and hands over each app whose Deployment runs another one, or whose held
   * build lacked a build secret at an older one.
   */
  async poll(apps: readonly LeasedApp[]): Promise<void> {
    const live = new Set(apps.map((app) => app.key));
    for (const key of this.#handed.keys()) if (!live.has(key)) this.#handed.delete(key);
    // An app without a Deployment is not released yet: its first release reads the current version itself.
    const watched = apps.filter((app) => app.deployed !== null || app.held !== null);
    if (watched.length === 0) return;
    const versions = await this.#options.versions([...new Set(watched.map((app) => app.lease))]);
    for (const app of watched) {
      const version = versions.get(app.lease) ?? 0;
      const moved = (app.deployed !== null && version !== app.deployed) || (app.held !== null && version > app.held);
      if (!moved || this.#handed.get(app.key) === version) continue;
      this.#handed.set(app.key, version);
      this.#options.onChange(app, version);
    }
  }
}
