import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { devnetCommand } from '../../src/cli/devnet.ts';
import { silentLog } from '../../src/core/log.ts';
import type { CliApp } from '../../src/cli/app.ts';
import { UsageError } from '../../src/core/errors.ts';
import { serveDevnet } from '../../src/main/devnet.ts';

const devnet = suite('devnetCommand');

/** Runs the devnet command's handler, composed as src/main composes it, with yargs' defaults and `options`; `started` resolves with what it printed once it serves. */
function runDevnet(dir: string, options: { host?: string } = {}): { running: Promise<void>; started: Promise<string> } {
  let printed = '';
  let announce: (text: string) => void = () => {};
  const started = new Promise<string>((resolve) => { announce = resolve; });
  const app = { stdout: (text: string) => { printed += text; announce(printed); }, log: silentLog, stderr: () => {}, serveDevnet } as unknown as CliApp;
  const running = (devnetCommand.handler as (argv: unknown) => Promise<void>)({ app, port: 0, dir, keyServersDown: [], storageNodes: 0, storageNodesDown: [], storageNodeAddress: [], ...options, _: [], $0: 'git walrus' });
  return { running, started };
}

devnet('prints its URLs, serves until SIGTERM, then stops listening', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'walrus-git-cli-devnet-'));
  const { running, started } = runDevnet(dir);
  const printed = await started;
  const url = /^devnet: (http:\/\/127\.0\.0\.1:\d+)$/m.exec(printed)?.[1];
  assert.ok(url, printed);
  assert.match(printed, /^package: 0x[0-9a-f]{64}$/m);
  const info = (await (await fetch(`${url}/v1/devnet`)).json()) as { packageId: string };
  assert.ok(printed.includes(info.packageId));
  process.emit('SIGTERM');
  await running;
  await fetch(`${url}/v1/devnet`).then(
    () => assert.unreachable('still serving after SIGTERM'),
    (error: unknown) => assert.instance(error, TypeError),
  );
  rmSync(dir, { recursive: true, force: true });
});

devnet('--host binds another loopback address, and refuses an address no local interface has', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'walrus-git-cli-devnet-'));
  const refused = await runDevnet(dir, { host: '192.0.2.1' }).running.then(() => null, (e: unknown) => e);
  assert.instance(refused, UsageError);
  assert.match((refused as Error).message, /192\.0\.2\.1 is neither a loopback address nor an address of a local interface/);
  const { running, started } = runDevnet(dir, { host: '127.0.0.2' });
  const printed = await started;
  const url = /^devnet: (http:\/\/127\.0\.0\.2:\d+)$/m.exec(printed)?.[1];
  assert.ok(url, printed);
  assert.ok(((await (await fetch(`${url}/v1/devnet`)).json()) as { packageId: string }).packageId);
  process.emit('SIGTERM');
  await running;
  rmSync(dir, { recursive: true, force: true });
});

devnet.run();
