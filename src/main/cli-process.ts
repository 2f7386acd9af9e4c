/**
 * The `git walrus <command>` process (started by cli.ts): composes the app (network, workspace, streams) and runs the
 * command table. The network's adapters and the pack reader (isomorphic-git) load when a command opens them, so
 * `--help`, a usage error or a command that needs no network does not pay for them.
 */
import { toolEnvironment } from '../gitops/build/tool-environment.ts';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { walrusHome } from '../config/home.ts';
import { adjustableLog } from '../core/log.ts';
import type { CliApp } from '../cli/app.ts';
import { runCli } from '../cli/index.ts';
import { gitWorkspace } from '../git/workspace.ts';
import { encoderSocket } from './warm-encoder.ts';

const args = process.argv.slice(2);
const verbose = args.includes('-v') || args.includes('--verbose');
const log = adjustableLog((text) => process.stderr.write(text), () => (args.includes('-q') || args.includes('--quiet') ? 0 : verbose ? 2 : 1), () => process.stderr.isTTY === true);

// The network's close writes this process's GIT_WALRUS_STATS line; a command that opens none writes it at the end.
let networkOpened = false;
const workspace = gitWorkspace({ env: process.env });

const app: CliApp = {
  open: async ({ network } = {}) => {
    networkOpened = true;
    const { openNetwork } = await import('./context.ts');
    const opened = await openNetwork({ env: process.env, log, network, role: 'cli', gitConfig: workspace.configSnapshot() });
    return {
      ledger: opened.ledger,
      blobStore: opened.blobStore,
      archive: opened.archive,
      keyService: opened.keyService,
      blobIdOf: opened.blobIdOf,
      ...(opened.blobObjects ? { blobObjects: opened.blobObjects } : {}),
      openPackObjects: async () => (await import('../git/pack-reader.ts')).PackObjectReader.open(),
      networkName: opened.name,
      ...(opened.certified ? { certified: opened.certified } : {}),
      market: opened.market,
      signPersonalMessage: opened.signPersonalMessage,
      close: opened.close,
    };
  },
  identity: async ({ network } = {}) => {
    const { activeNetwork } = await import('./active-network.ts');
    const active = await activeNetwork({ env: process.env, network, gitConfig: workspace.configSnapshot() });
    return { address: (await active.loadKey()).address, networkName: active.config.name };
  },
  workspace,
  stdout: (text) => process.stdout.write(text),
  stdoutColor: process.stdout.isTTY === true && (process.env.NO_COLOR ?? '') === '',
  log,
  stderr: (text) => process.stderr.write(text),
  toolPath: process.env.PATH ?? '/usr/bin:/bin',
  toolEnv: toolEnvironment(process.env),
  homeDir: resolve(walrusHome(process.env)),
  createClone: async (dir, options) => (await import('../git/new-clone.ts')).NativeNewClone.create(dir, options, process.env),
  startController: async (options) => (await import('./controller.ts')).startController(options, process.env, log),
  serveDevnet: async (options) => (await import('./devnet.ts')).serveDevnet(options),
  startWeb: async (options) => (await import('./web.ts')).startWeb(options, process.env, log),
  startGateway: async (options) => (await import('./gateway.ts')).startGateway(options, process.env, log),
  warmEncoder: warmEncoderControl(),
  version: (JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }).version,
};

/** `git walrus daemon`: the socket is the home's; the client loads only when asked. */
function warmEncoderControl(): NonNullable<CliApp['warmEncoder']> {
  const socket = encoderSocket(walrusHome(process.env));
  const client = () => import('../walrus-protocol/encoder-daemon-client.ts');
  return {
    socket,
    status: async () => (await client()).encoderStatus(socket),
    stop: async () => (await client()).stopEncoder(socket),
  };
}

const code = await runCli(args, app);
const statsFile = process.env.GIT_WALRUS_STATS;
if (statsFile && !networkOpened) {
  const { newStats, reportStats } = await import('./instrumented.ts');
  reportStats(statsFile, 'cli', newStats());
}
process.exit(code);
