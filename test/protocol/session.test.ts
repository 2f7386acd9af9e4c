import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { silentLog } from '../../src/core/log.ts';
import { ProtocolError, runSession } from '../../src/protocol/session.ts';
import type { FetchRequest, HelperBackend, PushRequest } from '../../src/ports/helper-backend.ts';

const A = 'a'.repeat(40);

async function* linesOf(text: string): AsyncIterable<string> {
  for (const line of text.split('\n')) yield line;
}

function recordingBackend() {
  const calls: string[] = [];
  const backend: HelperBackend = {
    option: (name, value) => {
      calls.push(`option ${name}=${value}`);
      return name === 'verbosity' ? 'ok' : 'unsupported';
    },
    list: async (forPush) => {
      calls.push(`list ${forPush}`);
      return { objectFormat: null, head: 'refs/heads/main', refs: new Map([['refs/heads/main', A]]) };
    },
    fetch: async (batch: FetchRequest[]) => { calls.push(`fetch ${batch.map((f) => f.name).join(',')}`); },
    push: async (batch: PushRequest[]) => {
      calls.push(`push ${batch.map((p) => `${p.force ? '+' : ''}${p.src ?? ''}:${p.dst}`).join(',')}`);
      return batch.map((p) => (p.src ? { dst: p.dst, ok: true as const } : { dst: p.dst, ok: false as const, reason: 'fetch first' }));
    },
  };
  return { backend, calls };
}

const session = suite('runSession');

session('answers capabilities, options and list, batches fetches, and ends on a blank line', async () => {
  const { backend, calls } = recordingBackend();
  let out = '';
  await runSession(linesOf(`capabilities\noption verbosity 1\noption progress true\nlist\nfetch ${A} refs/heads/main\nfetch ${A} HEAD\n\n\nlist\n`), async (t) => { out += t; }, backend, silentLog);
  assert.is(out, `fetch\ncheck-connectivity\npush\noption\nobject-format\n\nok\nunsupported\n@refs/heads/main HEAD\n${A} refs/heads/main\n\n\n`);
  assert.equal(calls, ['option verbosity=1', 'option progress=true', 'list false', 'fetch refs/heads/main,HEAD']);
});

session('answers options inside a push batch at once and the batch once', async () => {
  const { backend, calls } = recordingBackend();
  let out = '';
  await runSession(linesOf('list for-push\npush refs/heads/a:refs/heads/a\noption verbosity 0\npush :refs/heads/b\n\npush +refs/heads/c:refs/heads/c\n\n'), async (t) => { out += t; }, backend, silentLog);
  assert.is(out, `@refs/heads/main HEAD\n${A} refs/heads/main\n\nok\nok refs/heads/a\nerror refs/heads/b fetch first\n\nok refs/heads/c\n\n`);
  assert.equal(calls.slice(1), ['option verbosity=0', 'push refs/heads/a:refs/heads/a,:refs/heads/b', 'push +refs/heads/c:refs/heads/c']);
});

session('refuses unknown commands', async () => {
  const { backend } = recordingBackend();
  try {
    await runSession(linesOf('connect git-upload-pack\n'), async () => {}, backend, silentLog);
    assert.unreachable();
  } catch (e) {
    assert.instance(e, ProtocolError);
  }
});

session('a fetch that checked links answers lock and connectivity-ok before the blank line', async () => {
  const { backend } = recordingBackend();
  backend.fetch = async () => ({ connected: true, lock: '/repo/objects/pack/pack-1.keep' });
  let out = '';
  await runSession(linesOf(`fetch ${A} refs/heads/main\n\n`), async (t) => { out += t; }, backend, silentLog);
  assert.is(out, 'lock /repo/objects/pack/pack-1.keep\nconnectivity-ok\n\n');
});

session.run();
