/**
 * The controller's attester mode (docs/architecture.md, Reproduced builds), a companion beside the WalrusApp loop:
 * it finds the leases whose tenant requires reproduction from the chain's `ReproductionRequired` events, and for each
 * open one that another provider serves builds the head its ref points at (in a build Job: job-build.ts) and attests
 * the digests it got: a commitment while the tally's commit window is open, the reveal once it has
 * closed by the chain's clock (remote/market/attest.ts `advanceAttestation`, which `git walrus attest` steps through
 * too). It never attests a lease it serves itself: a provider does not vouch for its own build.
 *
 * Every pass starts from the chain: it finds the heads and, having already committed, reveals with the nonce its key
 * derives again. What it built (and may have committed to) and the commits it finished are kept in its state
 * (`AttesterState`: a ConfigMap in the controller's namespace), written as they change: a restarted attester reveals what it built
 * without building again, a head the lease moved past included, and does not build a finished commit again.
 */
import { AttestationMissedError } from '../../core/attestation.ts';
import { messageOf } from '../../core/errors.ts';
import { PassLoop } from '../pass-loop.ts';
import { normalizeSuiId } from '../../core/walrus-url.ts';
import type { Companion } from '../../ports/companion.ts';
import type { AttesterState } from '../../ports/attester-state.ts';
import { FINISHED_KEPT, type KeptAttestations } from '../../core/kept-attestations.ts';
import type { AttestationLedger, Attester as AttestingProvider } from '../../ports/attestations.ts';
import type { Ledger } from '../../ports/ledger.ts';
import type { MarketLedger } from '../../ports/market.ts';
import { advanceAttestation, type AttestDeps } from '../../remote/market/attest.ts';
import { AttesterBuildFailedError } from './errors.ts';
import { fullRefName } from '../watch/head-reader.ts';

/** A commit built for attestation: its digests and the key it was built under. */
export interface AttesterBuild {
  tarSha256: string;
  manifestRoot: string;
  /** Null when the build left no report (nothing to attest under). */
  buildKey: string | null;
}

export interface AttesterOptions {
  attester: AttestingProvider;
  market: Pick<MarketLedger, 'getLease' | 'clockMs'>;
  attestations: Pick<AttestationLedger, 'reproductionRequestsAfter' | 'requiredReproductions' | 'tally' | 'commitBuild' | 'revealBuild'>;
  signPersonalMessage: AttestDeps['signPersonalMessage'];
  /** Where the leases' heads are read. */
  ledger: Pick<Ledger, 'getRepository' | 'listRefs'>;
  /**
   * Builds `commit` of `repositoryId` with the reproducible build and packs it (nothing stored): in a build Job when
   * the controller runs against a cluster (job-build.ts, null while the Job runs), in this process for the local
   * attester. The app's own failure is AttesterBuildFailedError.
   */
  build(repositoryId: string, commit: string): Promise<AttesterBuild | null>;
  /** The image the builds' keys name (kept beside each build). */
  image: string;
  /** Where what it built and finished is kept between runs. */
  state: AttesterState;
  /** Time between passes. */
  intervalMs?: number;
  log(line: string): void;
}

interface Work {
  repositoryId: string;
  commit: string;
  lease: string;
  /** Its build was asked for (a Job may be under way). */
  building?: boolean;
  built?: AttesterBuild;
}

export class Attester implements Companion {
  readonly #options: AttesterOptions;
  /** Leases that ever asked for reproduction (from the events); dropped once closed. */
  readonly #leases = new Set<string>();
  #cursor: string | null = null;
  /** (repository, commit) → what is left to do for it. */
  readonly #work = new Map<string, Work>();
  /** (repository, commit) pairs revealed, missed or not attestable, oldest first. */
  readonly #finished = new Set<string>();
  #loaded = false;
  readonly #loop: PassLoop;

  constructor(options: AttesterOptions) {
    this.#options = options;
    this.#loop = new PassLoop(() => this.pass(), options.intervalMs ?? 5000, (line) => options.log(line), 'attester');
  }

  start(): void {
    this.#loop.start();
  }

  stop(): Promise<void> {
    return this.#loop.stop();
  }

  /** One pass: new requests read, each wanted head noted, every open attestation stepped. */
  async pass(): Promise<void> {
    const { attestations, log } = this.#options;
    if (!this.#loaded) await this.#load();
    const requests = await attestations.reproductionRequestsAfter(this.#cursor);
    for (const lease of requests.leases) this.#leases.add(normalizeSuiId(lease));
    this.#cursor = requests.cursor;
    for (const lease of this.#leases) {
      try {
        await this.#follow(lease);
      } catch (error) {
        log(`attester: lease ${lease}: ${messageOf(error)}; again next pass`);
      }
    }
    for (const [key, work] of this.#work) {
      if (this.#loop.stopped) return;
      try {
        if (await this.#step(work)) {
          this.#work.delete(key);
          this.#finished.add(key);
          await this.#save();
        }
      } catch (error) {
        log(`attester: ${work.commit.slice(0, 12)} of ${work.repositoryId}: ${messageOf(error)}; again next pass`);
      }
    }
  }

  /** What the state kept from an earlier run: its builds to step again, the commits it finished. */
  async #load(): Promise<void> {
    const kept = await this.#options.state.load();
    for (const key of kept.finished) this.#finished.add(key);
    for (const build of kept.builds) {
      const { repositoryId, commit, lease, tarSha256, manifestRoot, buildKey } = build;
      this.#work.set(`${normalizeSuiId(repositoryId)}:${commit}`, { repositoryId, commit, lease, building: true, built: { tarSha256, manifestRoot, buildKey } });
    }
    if (kept.builds.length > 0) this.#options.log(`attester: ${kept.builds.length} build(s) kept from an earlier run, stepped without building again`);
    this.#loaded = true;
  }

  async #save(): Promise<void> {
    const builds = [...this.#work.values()].flatMap((work) => {
      const built = work.built;
      if (!built || built.buildKey === null) return [];
      return [{ repositoryId: work.repositoryId, commit: work.commit, lease: work.lease, tarSha256: built.tarSha256, manifestRoot: built.manifestRoot, buildKey: built.buildKey, image: this.#options.image }];
    });
    while (this.#finished.size > FINISHED_KEPT) this.#finished.delete(this.#finished.values().next().value!);
    const kept: KeptAttestations = { builds, finished: [...this.#finished] };
    await this.#options.state.save(kept);
  }

  /** Notes the head of `lease` for attestation when the lease wants it and another provider serves it. */
  async #follow(lease: string): Promise<void> {
    const { market, attestations, attester, ledger } = this.#options;
    const info = await market.getLease(lease);
    if (info.state === 'closed') {
      this.#leases.delete(lease);
      return;
    }
    if (normalizeSuiId(info.provider) === normalizeSuiId(attester.providerId)) return;
    if ((await attestations.requiredReproductions(lease)) === 0) return;
    const [repository, refs] = await Promise.all([ledger.getRepository(info.repository), ledger.listRefs(info.repository)]);
    const commit = refs.get(fullRefName(info.ref || repository.head, refs));
    if (commit === undefined) return;
    const key = `${normalizeSuiId(info.repository)}:${commit}`;
    if (!this.#work.has(key) && !this.#finished.has(key)) this.#work.set(key, { repositoryId: info.repository, commit, lease });
  }

  /** Builds (once) and steps the attestation; true once nothing is left to do for it. */
  async #step(work: Work): Promise<boolean> {
    const { attester, market, attestations, signPersonalMessage, log } = this.#options;
    const short = work.commit.slice(0, 12);
    if (!work.built) {
      if (!work.building) log(`attester: building ${short} of ${work.repositoryId} (lease ${work.lease} requires reproduction)`);
      work.building = true;
      try {
        const built = await this.#options.build(work.repositoryId, work.commit);
        if (built === null) return false;
        work.built = built;
        // Kept before anything is committed: a restart reveals it without building again.
        if (built.buildKey !== null) await this.#save();
      } catch (error) {
        // The app's own build failing here is an answer (nothing to attest); anything else is tried again.
        if (!(error instanceof AttesterBuildFailedError)) throw error;
        log(`attester: ${error.message}`);
        return true;
      }
    }
    const { buildKey, tarSha256, manifestRoot } = work.built;
    if (buildKey === null) {
      log(`attester: the build of ${short} left no build report, so it has no build key to attest under`);
      return true;
    }
    const at = { repositoryId: work.repositoryId, commit: work.commit, buildKey };
    try {
      const step = await advanceAttestation({ attestations, clockMs: () => market.clockMs(), signPersonalMessage }, attester, at, { tarSha256, manifestRoot });
      if (step.state === 'committed') {
        if (step.digest) log(`attester: committed to ${short} (tar sha256 ${tarSha256}, build key ${buildKey}); revealing after ${new Date(step.revealAfterMs).toISOString()} (${step.digest})`);
        return false;
      }
      log(step.digest ? `attester: revealed ${short}: tar sha256 ${tarSha256}, manifest root ${manifestRoot} (${step.digest})` : `attester: ${short} was revealed already`);
      return true;
    } catch (error) {
      if (!(error instanceof AttestationMissedError)) throw error;
      log(`attester: ${error.message}`);
      return true;
    }
  }
}
