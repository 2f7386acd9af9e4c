/**
 * "Verify everything": one `verify` run per repository at a time, in the background, with its progress lines kept
 * for the page to show. Deep (every pack applied, every ref target's history checked) when the running key may read
 * the repository; otherwise what anyone can check (the push log and the packs as stored). Where the network has a
 * trust anchor, the state checked against is the one proved against the validators' certificates.
 */
import type { Log } from '../core/log.ts';
import { messageOf } from '../core/errors.ts';
import type { PushEvent } from '../ports/ledger.ts';
import { verifyRepository, type LogPosition, type VerifyReport } from '../remote/history/verify-repository.ts';
import type { WebServices } from './app.ts';

/** What a run reads with. */
export type VerifyServices = Pick<WebServices, 'ledger' | 'blobStore' | 'blobIdOf' | 'openPackObjects' | 'keyService' | 'certified'>;

export interface VerifyJob {
  state: 'running' | 'done' | 'error';
  deep: boolean;
  startedMs: number;
  /** The last progress line. */
  progress: string;
  /**
   * The log position the run started from (the page's view of the chain): its verdicts are about the pushes up to
   * `seq`, checked against `logHead`, whatever lands while it runs.
   */
  seq: number;
  logHead: string;
  /** The pushes up to `seq`, once read. */
  events?: PushEvent[];
  report?: VerifyReport;
  error?: string;
}

export class VerifyJobs {
  readonly #services: VerifyServices;
  readonly #jobs = new Map<string, VerifyJob>();

  constructor(services: VerifyServices) {
    this.#services = services;
  }

  get(id: string): VerifyJob | undefined {
    return this.#jobs.get(id);
  }

  /** Starts a run unless one is under way; returns the job either way. */
  start(id: string, at: LogPosition, deep: boolean): VerifyJob {
    const running = this.#jobs.get(id);
    if (running?.state === 'running') return running;
    const job: VerifyJob = { state: 'running', deep, startedMs: Date.now(), progress: 'starting', seq: at.seq, logHead: at.logHead };
    this.#jobs.set(id, job);
    const log: Log = {
      verbosity: 1,
      info: (m) => { job.progress = m; },
      debug: () => {},
      warn: (m) => { job.progress = m; },
      progress: (m) => { job.progress = m; },
    };
    const { ledger, blobStore, blobIdOf, openPackObjects, keyService } = this.#services;
    void (async () => {
      try {
        const certified = await this.#services.certified?.();
        job.report = await verifyRepository({ ledger, blobStore, blobIdOf, openPackObjects, keyService, log, ...(certified ? { certified } : {}) }, id, { deep, at });
        job.events = (await ledger.listPushes(id)).filter((event) => event.seq <= at.seq);
        job.state = 'done';
        job.progress = job.report.findings.length === 0 ? 'every check holds' : `${job.report.findings.length} problem(s) found`;
      } catch (error) {
        job.state = 'error';
        job.error = messageOf(error);
        job.progress = `verification stopped: ${job.error}`;
      }
    })();
    return job;
  }
}
