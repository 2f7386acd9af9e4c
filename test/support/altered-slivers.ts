import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * What a faulty storage node would serve: flips the first data byte (after the BCS length) of every `type` sliver the
 * devnet's emulated nodes keep on disk under `walrusDir` (of `blobId`, or of every blob), the first symbol of each,
 * which holds a byte of the blob in every source sliver. Returns how many slivers it altered.
 */
export function alterSlivers(walrusDir: string, type: 'primary' | 'secondary', blobId?: string): number {
  let altered = 0;
  for (const node of readdirSync(join(walrusDir, 'nodes'))) {
    for (const blob of blobId === undefined ? readdirSync(join(walrusDir, 'nodes', node)) : [blobId]) {
      const blobDir = join(walrusDir, 'nodes', node, blob);
      for (const name of readdirSync(blobDir).filter((file) => file.endsWith(`.${type}`))) {
        const sliver = readFileSync(join(blobDir, name));
        let offset = 0;
        while (sliver[offset]! & 0x80) offset++;
        sliver[offset + 1]! ^= 0xff;
        writeFileSync(join(blobDir, name), sliver);
        altered++;
      }
    }
  }
  return altered;
}
