/** Runs `git walrus <args>` over in-memory ports and a given git workspace, capturing what it prints (CLI tests). */
import { streamLog } from '../../src/core/log.ts';
import type { CliApp } from '../../src/cli/app.ts';
import { ExitError } from '../../src/cli/app.ts';
import type { GitWorkspace } from '../../src/ports/git-workspace.ts';
import { runCli } from '../../src/cli/index.ts';
import { PackObjectReader } from '../../src/git/pack-reader.ts';
import { tarballArchive } from '../../src/fs/tarball.ts';
import type { KeyService } from '../../src/ports/key-service.ts';
import type { Ledger } from '../../src/ports/ledger.ts';
import { MemoryBlobStore } from './memory-ports.ts';

export async function runMemoryCli(ports: { ledger: Ledger; keyService?: KeyService }, workspace: GitWorkspace, args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const run = { code: -1, stdout: '', stderr: '' };
  const app: CliApp = {
    open: async () => ({ ...ports, blobStore: new MemoryBlobStore(), archive: tarballArchive, blobIdOf: async () => '', openPackObjects: () => PackObjectReader.open(), networkName: 'local', close: async () => {} }),
    workspace,
    stdout: (text) => { run.stdout += text; },
    stdoutColor: false,
    log: streamLog((text) => { run.stderr += text; }),
    stderr: (text) => { run.stderr += text; },
  };
  run.code = await runCli(args, app);
  return run;
}

/**
 * `git walrus <args>` with a Walrus that records the blob ids read and stops the command at the first read (exit 3):
 * which artifact a command line names, as the parser reads it.
 */
export async function readingBlobs(args: string[]): Promise<{ code: number; read: string[]; stderr: string }> {
  const read: string[] = [];
  let stderr = '';
  const blobStore = { read: async (blobId: string) => { read.push(blobId); throw new ExitError('', 3); } };
  const app: CliApp = {
    open: async () => ({ blobStore, close: async () => {} }) as never,
    workspace: { isRepository: async () => false, remoteUrl: async () => null, addRemote: async () => {} },
    stdout: () => {},
    stdoutColor: false,
    log: streamLog((text) => { stderr += text; }, 1),
    stderr: (text) => { stderr += text; },
  };
  return { code: await runCli(args, app), read, stderr };
}
