/** A `git walrus` app over a fixture history, capturing stdout and stderr, for the log/show/verify command tests. */
import { streamLog } from '../../../src/core/log.ts';
import type { CliApp } from '../../../src/cli/app.ts';
import { runCli } from '../../../src/cli/index.ts';
import { fakeBlobId, historyLedger, mapBlobStore, type History } from './fixture.ts';
import { PackObjectReader } from '../../../src/git/pack-reader.ts';

export interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
  /** How many times the network was opened and closed. */
  opened: number;
  closed: number;
}

export async function runReviewerCli(history: History, args: string[], options: { color?: boolean } = {}): Promise<CliRun> {
  const run: CliRun = { code: -1, stdout: '', stderr: '', opened: 0, closed: 0 };
  const app: CliApp = {
    open: async () => {
      run.opened += 1;
      return {
        ledger: historyLedger(history),
        blobStore: mapBlobStore(history.blobs),
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
