/** A `git walrus` app over a fixture history, capturing stdout and stderr, for the log/show/verify command tests. */
import { streamLog } from '../../../src/core/log.ts';
import type { CliApp } from '../../../src/cli/app.ts';
import { runCli } from '../../../src/cli/index.ts';
import { fakeBlobId, historyLedger, mapBlobStore, type History } from './fixture.ts';
import { PackObjectReader } from '../../../src/git/pack-reader.ts';
import { tarballArchive } from '../../../src/fs/tarball.ts';
import type { BlobStore } from '../../../src/ports/blob-store.ts';
import type { Ledger } from '../../../src/ports/ledger.ts';

export interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
  /** How many times the network was opened and closed. */
  opened: number;
  closed: number;
}

export interface ReviewerCliOptions {
  color?: boolean;
  /** Wraps the fixture's ports, to watch or change what the command asks of them. */
  ports?: (ports: { ledger: Ledger; blobStore: BlobStore }) => { ledger: Ledger; blobStore: BlobStore };
}

export async function runReviewerCli(history: History, args: string[], options: ReviewerCliOptions = {}): Promise<CliRun> {
  const wrap = options.ports ?? ((ports) => ports);
  const run: CliRun = { code: -1, stdout: '', stderr: '', opened: 0, closed: 0 };
  const app: CliApp = {
    open: async () => {
      run.opened += 1;
      return {
        ...wrap({ ledger: historyLedger(history), blobStore: mapBlobStore(history.blobs) }),
        archive: tarballArchive,
        blobIdOf: async (bytes) => fakeBlobId(bytes),
        openPackObjects: () => PackObjectReader.open(),
        networkName: 'local',
        close: async () => { run.closed += 1; },
      };
    },
    workspace: {
      isRepository: async () => true,
      remoteUrl: async (name) => (name === 'origin' ? `walrus://${history.repository.id}` : null),
      addRemote: async () => {},
    },
    stdout: (text) => { run.stdout += text; },
    stdoutColor: options.color ?? false,
    log: streamLog((text) => { run.stderr += text; }),
    stderr: (text) => { run.stderr += text; },
  };
  run.code = await runCli(args, app);
  return run;
}
