/** Runs `git walrus <args>` over in-memory ports and a given git workspace, capturing what it prints (CLI tests). */
import { streamLog } from '../../src/core/log.ts';
import type { CliApp } from '../../src/cli/app.ts';
import type { GitWorkspace } from '../../src/ports/git-workspace.ts';
import { runCli } from '../../src/cli/index.ts';
import { PackObjectReader } from '../../src/git/pack-reader.ts';
import type { KeyService } from '../../src/ports/key-service.ts';
import type { Ledger } from '../../src/ports/ledger.ts';
import { MemoryBlobStore } from './memory-ports.ts';

export async function runMemoryCli(ports: { ledger: Ledger; keyService?: KeyService }, workspace: GitWorkspace, args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const run = { code: -1, stdout: '', stderr: '' };
  const app: CliApp = {
    open: async () => ({ ...ports, blobStore: new MemoryBlobStore(), blobIdOf: async () => '', openPackObjects: () => PackObjectReader.open(), networkName: 'local', close: async () => {} }),
    workspace,
    stdout: (text) => { run.stdout += text; },
    stdoutColor: false,
    log: streamLog((text) => { run.stderr += text; }),
    stderr: (text) => { run.stderr += text; },
  };
  run.code = await runCli(args, app);
  return run;
}
