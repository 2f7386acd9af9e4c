/**
 * Provider mode: notices a new version of a leased app's secrets (docs/architecture.md, Secrets sealed to a lease)
 * without waiting for the resync. `set_secrets` moves a dynamic field of the Lease and emits no event the package's
 * push cursor would carry, so each poll reads the secrets pointers of every leased app at once (one chain read per
 * 50 leases: the fields' ids are derived, not looked up) and compares each with the version the app's Deployment
 * runs. An app whose Deployment runs another version is handed to `onChange` once per chain version: a pass that
 * cannot roll it out yet (a build under way, a held revision) is not asked again every poll, and the resync remains
 * the safety net. Level-triggered, so a change made while the controller was down is found on its first poll.
 */

/** A leased app as the controller's caches hold it. */
export interface LeasedApp {
  /** The app's queue key (namespace/name). */
  key: string;
  lease: string;
  /** The secrets version its Deployment's pods name; 0 for none, null when it has no Deployment yet. */
  deployed: number | null;
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

  /** Reads the versions of `apps`' leases and hands over each app whose Deployment runs another one. */
  async poll(apps: readonly LeasedApp[]): Promise<void> {
    const live = new Set(apps.map((app) => app.key));
    for (const key of this.#handed.keys()) if (!live.has(key)) this.#handed.delete(key);
    // An app without a Deployment is not released yet: its first release reads the current version itself.
    const released = apps.filter((app) => app.deployed !== null);
    if (released.length === 0) return;
    const versions = await this.#options.versions([...new Set(released.map((app) => app.lease))]);
    for (const app of released) {
      const version = versions.get(app.lease) ?? 0;
      if (version === app.deployed || this.#handed.get(app.key) === version) continue;
      this.#handed.set(app.key, version);
      this.#options.onChange(app, version);
    }
  }
}
