import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { imageDigest, imageID, ImageMapError, normalizeImage, parseImageMap, resolveImage } from '../cluster/kubelet/images.ts';
import { imageByDigest } from '../../src/core/image-reference.ts';
import { defaultImageMap, IMAGE_ROOT } from '../cluster/kubelet/kubelet.ts';
import { projectFiles, quantityBytes, VolumeError } from '../cluster/kubelet/volumes.ts';

const images = suite('kubelet image map and volume files');

images('image names normalize as a registry would read them', () => {
  assert.is(normalizeImage('node'), 'node:latest');
  assert.is(normalizeImage('docker.io/library/node:22'), 'node:22');
  assert.is(normalizeImage('registry:5000/team/app'), 'registry:5000/team/app:latest');
  assert.is(normalizeImage('app@sha256:abc'), 'app@sha256:abc');
});

images('patterns match with *, first match wins, unmapped images resolve to nothing', () => {
  const map = defaultImageMap();
  assert.ok(resolveImage(map, 'node:22')?.path[0].endsWith('/images/node'));
  assert.ok(resolveImage(map, 'node'), 'node without a tag is node:latest');
  assert.ok(resolveImage(map, 'docker.io/library/node:22-alpine'));
  assert.ok(resolveImage(map, 'git-remote-walrus:dev')?.path[0].endsWith('/bin'));
  assert.is(resolveImage(map, 'nodejs:22'), undefined);
  assert.is(resolveImage(map, 'registry.invalid/web:1'), undefined);
  const both = { 'web:*': { path: ['/first'] }, '*': { path: ['/any'] } };
  assert.equal(resolveImage(both, 'web:2')?.path, ['/first']);
  assert.equal(resolveImage(both, 'other')?.path, ['/any']);
});

images('the reported imageID names the repository and a digest, as a real kubelet reports it; an image by digest resolves only to that digest', () => {
  const map = defaultImageMap();
  const digest = imageDigest('node:*', map['node:*']!);
  assert.match(digest, /^sha256:[0-9a-f]{64}$/);
  assert.is(imageID(map, 'node:22'), `docker.io/library/node@${digest}`);
  assert.is(imageID(map, 'docker.io/library/node:22-alpine'), `docker.io/library/node@${digest}`);
  assert.is(imageID(map, `node@${digest}`), `docker.io/library/node@${digest}`, 'by digest: the same image, the same id');
  assert.is(imageByDigest(imageID(map, 'node:22')), `docker.io/library/node@${digest}`, 'what the controller reads back');
  assert.ok(resolveImage(map, `docker.io/library/node@${digest}`));
  assert.is(resolveImage(map, `node@sha256:${'0'.repeat(64)}`), undefined, 'another digest is another image: not present');
  assert.is(resolveImage(map, `git-remote-walrus@${digest}`), undefined, 'a digest belongs to its repository');
  assert.is(imageID(map, 'nodejs:22'), '');
  // Where the checkout lies is not part of what a container sees: the same digest from another clone.
  assert.is(imageDigest('node:*', defaultImageMap('/elsewhere')['node:*']!), digest);
  assert.not.equal(imageDigest('node:*', { ...map['node:*']!, cmd: ['sh'] }), digest);
});

images('the default images have the checkout at one path of their own, and PATH there', () => {
  const map = defaultImageMap('/tmp/tmp.0700/clone');
  for (const image of ['node:22', 'git-remote-walrus:dev']) {
    const runtime = resolveImage(map, image)!;
    assert.equal(runtime.files, { [IMAGE_ROOT]: '/tmp/tmp.0700/clone' });
    assert.ok(runtime.path.every((dir) => dir.startsWith(`${IMAGE_ROOT}/`)), runtime.path.join(':'));
  }
});

images('a map file is checked entry by entry', () => {
  assert.equal(parseImageMap({ 'tool:*': { files: { '/opt/tool': '/srv/tool' }, path: ['/opt/tool/bin'] } }, 'f.json')['tool:*']!.files, { '/opt/tool': '/srv/tool' });
  for (const files of [{ 'opt/tool': '/srv/tool' }, { '/': '/srv/tool' }, { '/opt/tool': 3 }, ['/opt/tool']]) {
    assert.throws(() => parseImageMap({ 'tool:*': { files, path: [] } }, 'f.json'), (e: Error) => e instanceof ImageMapError && /files\?/.test(e.message), JSON.stringify(files));
  }
  assert.equal(parseImageMap({ 'py:*': { path: ['/usr/bin'], cmd: ['python3'] } }, 'f.json'), { 'py:*': { path: ['/usr/bin'], cmd: ['python3'] } });
  assert.throws(() => parseImageMap({ 'py:*': { path: '/usr/bin' } }, 'f.json'), (e: Error) => e instanceof ImageMapError && /f\.json: entry "py:\*"/.test(e.message));
  assert.throws(() => parseImageMap([], 'f.json'), (e: Error) => e instanceof ImageMapError);
});

images('secret and configMap files: every key, or items with their paths and modes over defaultMode', () => {
  const data = { a: Buffer.from('1'), b: Buffer.from('2') };
  assert.equal(projectFiles(data, undefined, undefined, 'v', false).map((f) => [f.path, f.mode]), [['a', 0o644], ['b', 0o644]]);
  assert.equal(projectFiles(data, [{ key: 'b', path: 'dir/b.txt', mode: 0o400 }, { key: 'a', path: 'a' }], 0o440, 'v', false)
    .map((f) => [f.path, f.content.toString(), f.mode]), [['dir/b.txt', '2', 0o400], ['a', '1', 0o440]]);
  assert.throws(() => projectFiles(data, [{ key: 'zz', path: 'z' }], undefined, 'volume "v"', false), (e: Error) => e instanceof VolumeError && /key "zz" not found/.test(e.message));
  assert.equal(projectFiles(data, [{ key: 'zz', path: 'z' }], undefined, 'v', true), []);
});

images('quantities in bytes (for emptyDir sizeLimit)', () => {
  assert.is(quantityBytes('1Mi'), 1048576);
  assert.is(quantityBytes('2k'), 2000);
  assert.is(quantityBytes('1e3'), 1000);
  assert.is(quantityBytes('512'), 512);
  assert.throws(() => quantityBytes('lots'), (e: Error) => e instanceof VolumeError);
});

images.run();
