import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { BlobEncoder } from '@mysten/walrus-wasm';
import { encodedBlobLength, maxBlobSizeForShards } from '../../src/walrus-protocol/encoding.ts';

const encoded = suite('encodedBlobLength');

encoded('is the storage size the real 1000-shard network reports for a 17-byte blob', () => {
  assert.is(encodedBlobLength(17, 1000), 66_034_000);
});

encoded('grows with the blob once the minimal symbol size is exceeded', () => {
  assert.is(encodedBlobLength(0, 50), encodedBlobLength(1, 50));
  assert.ok(encodedBlobLength(10 * 1024 * 1024, 50) > encodedBlobLength(1024 * 1024, 50));
});

encoded.run();

const maxSize = suite('maxBlobSizeForShards');

maxSize('is the limit of the real encoder: it encodes the maximum and refuses one symbol row more', () => {
  const max = maxBlobSizeForShards(10);
  new BlobEncoder(10).compute_metadata(new Uint8Array(max));
  assert.throws(() => new BlobEncoder(10).compute_metadata(new Uint8Array(max + 4 * 7 * 2)));
});

maxSize('50 shards hold a 10 MiB chunk and 20 shards do not', () => {
  assert.ok(maxBlobSizeForShards(50) >= 10 * 1024 * 1024);
  assert.ok(maxBlobSizeForShards(20) < 10 * 1024 * 1024);
});

maxSize.run();
