/**
 * `npm run k8s:up`: builds (or reuses) the binaries, starts a control plane that outlives this command,
 * and prints how to use it. `npm run k8s:down [-- DIR]`: stops it (by default the last one started here).
 */
import { readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ensureBinaries, startControlPlane, stopControlPlane } from './control-plane.ts';

// Where `up` leaves the plane's directory for a later `down` without arguments.
const CURRENT = join(tmpdir(), `git-remote-walrus-k8s-${process.getuid?.() ?? 'user'}.current`);
const log = (line: string) => process.stderr.write(`${line}\n`);

async function up(): Promise<void> {
  const binDir = await ensureBinaries();
  const plane = await startControlPlane({ binDir, dieWithParent: false, log });
  await writeFile(CURRENT, plane.dir + '\n');
  process.stdout.write(`export KUBECONFIG=${plane.kubeconfigPath}\n`);
  log(`k8s: stop it with: npm run k8s:down -- ${plane.dir}`);
}

async function down(dir: string | undefined): Promise<void> {
  const target = dir ?? (await readFile(CURRENT, 'utf8').catch(() => '')).trim();
  if (!target) {
    log('k8s: no control plane recorded as started; pass its directory: npm run k8s:down -- DIR');
    process.exitCode = 1;
    return;
  }
  await stopControlPlane(target);
  if (!dir || (await readFile(CURRENT, 'utf8').catch(() => '')).trim() === target) await rm(CURRENT, { force: true });
  log(`k8s: stopped the control plane in ${target}`);
}

const [command, arg] = process.argv.slice(2);
if (command === 'up') await up();
else if (command === 'down') await down(arg);
else {
  log('usage: node scripts/k8s/plane.ts up | down [DIR]');
  process.exitCode = 2;
}
