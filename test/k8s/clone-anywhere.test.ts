import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { REPO_ROOT } from '../../scripts/harness/world.ts';
import { runAfterExit, spawnReaped } from '../../scripts/harness/reaper.ts';

const clone = suite('the Kubernetes build path from a clone anywhere');
// mkdtemp makes the directory 0700: pods run as uid 1000, which cannot traverse it.
const parent = mkdtempSync('/tmp/walrus-clone-');
clone.after(() => rmSync(parent, { recursive: true, force: true }));
runAfterExit(['rm', '-rf', parent]); // also when this process is killed

clone('a clone under a 0700 directory in /tmp builds: the checkout step runs from the image the clone presents', async () => {
  assert.is(statSync(parent).mode & 0o777, 0o700);
  const dir = join(parent, 'project');
  execFileSync('git', ['clone', '-q', '--no-hardlinks', REPO_ROOT, dir]);
  // The same packages as `npm ci` would install, without the network: hard links to this checkout's.
  execFileSync('cp', ['-al', join(REPO_ROOT, 'node_modules'), join(dir, 'node_modules')]);
  const child = spawnReaped(join(dir, 'node_modules/.bin/node'), ['test/support/k8s-checkout-run.ts'], { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout.setEncoding('utf8').on('data', (d: string) => { output += d; });
  child.stderr.setEncoding('utf8').on('data', (d: string) => { output += d; });
  const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
  assert.is(code, 0, output);
  assert.match(output, /^checkout ok [0-9a-f]{40}$/m);
});

clone.run();
