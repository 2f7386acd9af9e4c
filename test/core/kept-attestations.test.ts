import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { FINISHED_KEPT, formatKeptAttestations, KeptAttestationsError, parseKeptAttestations } from '../../src/core/kept-attestations.ts';

const test = suite("an attester's kept state");
const build = { repositoryId: `0x${'1'.repeat(64)}`, commit: 'a'.repeat(40), lease: `0x${'2'.repeat(64)}`, tarSha256: 'b'.repeat(64), manifestRoot: 'c'.repeat(64), buildKey: 'd'.repeat(64), image: 'node@sha256:' + 'e'.repeat(64) };

test('what is kept reads back as it was written; the finished list keeps the newest', () => {
  const finished = Array.from({ length: FINISHED_KEPT + 3 }, (_, i) => `0x1:${i}`);
  const back = parseKeptAttestations(formatKeptAttestations({ builds: [build], finished }), 'state.json');
  assert.equal(back.builds, [build]);
  assert.equal(back.finished, finished.slice(3));
});

test('anything else is refused naming its source and what to do, never read as nothing kept', () => {
  for (const text of ['{', '[]', '{"builds":[]}', JSON.stringify({ builds: [{ ...build, tarSha256: 'short' }], finished: [] }), JSON.stringify({ builds: [{ ...build, image: 3 }], finished: [] })]) {
    assert.throws(() => parseKeptAttestations(text, 'ConfigMap ns/walrus-attester-state'),
      (error: Error) => error instanceof KeptAttestationsError && /^ConfigMap ns\/walrus-attester-state is not an attester's state .*remove it/.test(error.message), text);
  }
});

test.run();
