import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { imageByDigest } from '../../src/core/image-reference.ts';

const test = suite('image references by digest');
const digest = `sha256:${'ab'.repeat(32)}`;

test('a kubelet imageID names the image by its digest, with or without a runtime scheme', () => {
  assert.is(imageByDigest(`docker.io/library/node@${digest}`), `docker.io/library/node@${digest}`);
  assert.is(imageByDigest(`docker-pullable://node@${digest}`), `node@${digest}`);
  assert.is(imageByDigest(`registry.example:5000/team/builder@${digest}`), `registry.example:5000/team/builder@${digest}`);
});

test('no digest, no reference: a tag, a local image, an image id alone, a short or upper-case digest, nothing', () => {
  for (const id of ['node:22', 'process://node:22', `sha256:${'ab'.repeat(32)}`, 'node@sha256:abc', `node@sha256:${'AB'.repeat(32)}`, '', undefined]) {
    assert.is(imageByDigest(id), null, String(id));
  }
});

test.run();
