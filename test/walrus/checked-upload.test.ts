import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { uploadWithLocalId } from '../../src/walrus/checked-upload.ts';
import { computeBlobId } from '../../src/walrus-protocol/blob-id.ts';
import { BlobIdMismatchError } from '../../src/walrus/errors.ts';

const bytes = new TextEncoder().encode('a pack\n'.repeat(100));
const other = new TextEncoder().encode('another pack\n');

const UploadWithLocalId = suite('uploadWithLocalId');

UploadWithLocalId('returns the store answer when it reports the id of the bytes', async () => {
  const id = await computeBlobId(bytes, 10);
  const answer = { blobId: id, endEpoch: 7 };
  assert.is(await uploadWithLocalId(bytes, 10, async () => answer), answer);
});

UploadWithLocalId('refuses another id, or the right id for another shard count', async () => {
  const wrong = await computeBlobId(other, 10);
  const error = await uploadWithLocalId(bytes, 10, async () => ({ blobId: wrong })).then(() => assert.unreachable(), (e) => e);
  assert.instance(error, BlobIdMismatchError);
  assert.equal(error.data, { expected: await computeBlobId(bytes, 10), reported: wrong, numShards: 10 });
  const at50 = await computeBlobId(bytes, 50);
  await uploadWithLocalId(bytes, 10, async () => ({ blobId: at50 })).then(() => assert.unreachable(), (e) => assert.instance(e, BlobIdMismatchError));
});

UploadWithLocalId('an upload failure is the error, even when the local id fails too', async () => {
  const refused = new Error('publisher down');
  // 2 shards do not exist: the local id rejects, and that rejection must not surface as unhandled.
  const error = await uploadWithLocalId(bytes, 2, async () => { throw refused; }).then(() => assert.unreachable(), (e) => e);
  assert.is(error, refused);
  await new Promise((resolve) => setTimeout(resolve, 10));
});

UploadWithLocalId.run();
