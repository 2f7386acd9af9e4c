/**
 * Property tests of every parser of bytes another party controls (a remote's packs, the chain's objects and events,
 * an encrypted pack, an artifact's tarball, an app's package.json): whatever the input, it parses or is refused with
 * a coded error (a WalrusGitError), never another exception, a hang or unbounded memory. Inputs are random and
 * mutations of valid ones (bit flips, cuts, spliced bytes), bounded in size; the counts keep the file to seconds.
 * A failure prints fast-check's seed and the shrunk input, which replay it.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import fc from 'fast-check';
import { WalrusGitError } from '../../src/core/errors.ts';
import { PackDecryptor, PackEncryptor, newDataKey, newPackIdentity } from '../../src/core/pack-cipher.ts';
import { TarReader, bodyPadding, endOfArchive, entryHeader } from '../../src/fs/tar-format.ts';
import { parseManifest, manifestFromReport } from '../../src/gitops/manifest/manifest.ts';
import { parseTree } from '../../src/git/tree-entries.ts';
import { PackObjectReader } from '../../src/git/pack-reader.ts';
import { Repository } from '../../src/contract/bcs.ts';
import { fromChainBytes } from '../../src/contract/chain-bytes.ts';
import { pushEventFromBcs } from '../../src/sui/ledger.ts';
import { Events } from '../../src/contract/bcs.ts';
import { ScratchRepo } from '../remote/history/scratch-repo.ts';
import { EncryptedObject } from '@mysten/seal';
import { parseSealedKey } from '../../src/seal/sealed-key.ts';
import { encodeSharedSealedKey, parseSealedPackKey } from '../../src/core/shared-pack-key.ts';

/** Runs per target: enough to cross every branch of these small parsers, few enough for seconds in `npm test`. */
const RUNS = { tar: 400, manifest: 1000, envelope: 300, sealedKey: 1000, chainBcs: 1000, pushLog: 1000, tree: 1000, pack: 60 } as const;

/** Calls `parse`; passes when it returns or throws a coded error, fails on anything else. */
function parsesOrRefuses(parse: () => unknown): void {
  try {
    parse();
  } catch (error) {
    if (!(error instanceof WalrusGitError)) throw new Error(`an uncoded ${(error as Error)?.constructor?.name}: ${(error as Error)?.message}`);
    assert.type(error.code, 'string');
  }
}
async function parsesOrRefusesAsync(parse: () => Promise<unknown>): Promise<void> {
  try {
    await parse();
  } catch (error) {
    if (!(error instanceof WalrusGitError)) throw new Error(`an uncoded ${(error as Error)?.constructor?.name}: ${(error as Error)?.message}`);
  }
}

/** A valid input, or a mutation of it: flipped bits, a cut, random bytes spliced in, or random bytes alone. */
function mutationsOf(valid: Uint8Array, maxLength = 4096): fc.Arbitrary<Uint8Array> {
  const flips = fc.array(fc.record({ at: fc.nat(), bit: fc.integer({ min: 0, max: 7 }) }), { minLength: 1, maxLength: 8 }).map((changes) => {
    const out = valid.slice();
    for (const { at, bit } of changes) if (out.length > 0) out[at % out.length]! ^= 1 << bit;
    return out;
  });
  const cut = fc.nat(valid.length).map((n) => valid.slice(0, n));
  const spliced = fc.tuple(fc.nat(valid.length), fc.uint8Array({ maxLength: 64 })).map(([at, bytes]) => Uint8Array.from([...valid.subarray(0, at), ...bytes, ...valid.subarray(at)]));
  return fc.oneof(fc.constant(valid), flips, cut, spliced, fc.uint8Array({ maxLength }));
}

const fuzz = suite('untrusted bytes: each input parses or is refused with a coded error');

fuzz(`the tarball reader (${RUNS.tar} archives fed in random pieces)`, () => {
  const body = new TextEncoder().encode('console.log("hi")\n');
  const valid = Buffer.concat([
    entryHeader({ path: 'app', type: 'directory', mode: 0o755, size: 0 }),
    entryHeader({ path: 'app/index.js', type: 'file', mode: 0o644, size: body.length }), body, bodyPadding(body.length),
    entryHeader({ path: `app/${'long-name/'.repeat(12)}x`, type: 'symlink', mode: 0o777, size: 0, target: 'index.js' }),
    endOfArchive(),
  ]);
  fc.assert(fc.property(mutationsOf(valid, 8192), fc.array(fc.integer({ min: 1, max: 700 }), { minLength: 1, maxLength: 6 }), (bytes, pieces) => {
    parsesOrRefuses(() => {
      const reader = new TarReader();
      let at = 0;
      for (let i = 0; at < bytes.length; i++) {
        const size = pieces[i % pieces.length]!;
        reader.push(bytes.subarray(at, at + size));
        at += size;
      }
      reader.finish();
    });
  }), { numRuns: RUNS.tar });
});

fuzz(`the app manifest: package.json text and the manifest step's report (${RUNS.manifest} each)`, () => {
  const walrus = fc.record({ version: fc.anything(), port: fc.anything(), health: fc.anything(), build: fc.anything(), test: fc.anything(), start: fc.anything(), replicas: fc.anything(), env: fc.anything() }, { requiredKeys: [] });
  const text = fc.oneof(fc.string({ maxLength: 400 }), fc.json({ maxDepth: 4 }), walrus.map((w) => JSON.stringify({ name: 'app', walrus: w })));
  fc.assert(fc.property(text, fc.boolean(), (json, lockfile) => parsesOrRefuses(() => parseManifest(json, lockfile))), { numRuns: RUNS.manifest });
  fc.assert(fc.property(fc.jsonValue({ maxDepth: 4 }), (json) => parsesOrRefuses(() => manifestFromReport(json))), { numRuns: RUNS.manifest });
});

fuzz(`the encrypted pack envelope (${RUNS.envelope} stored packs)`, () => {
  const key = newDataKey();
  const identity = newPackIdentity(`0x${'1'.repeat(64)}`);
  const shift = 12; // 4 KiB frames, the smallest: several frames in a small input
  const encryptor = new PackEncryptor(key, identity, shift);
  const plain = new Uint8Array(9000).map((_, i) => i % 251);
  const valid = Buffer.concat([...encryptor.update(plain), encryptor.end()]);
  fc.assert(fc.property(mutationsOf(valid, 16384), (bytes) => parsesOrRefuses(() => new PackDecryptor(key, identity, 'pack #0').all(bytes))), { numRuns: RUNS.envelope });
});

fuzz(`the Seal envelope of a pack's data key: its EncryptedObject (${RUNS.sealedKey})`, () => {
  const id = (n: number) => `0x${n.toString(16).padStart(64, '0')}`;
  const valid = EncryptedObject.serialize({
    version: 0, packageId: id(1), id: 'ab'.repeat(40), services: [[id(2), 0], [id(3), 1]], threshold: 2,
    encryptedShares: { BonehFranklinBLS12381: { nonce: new Uint8Array(96).fill(7), encryptedShares: [new Uint8Array(32), new Uint8Array(32).fill(1)], encryptedRandomness: new Uint8Array(32).fill(2) } },
    ciphertext: { Aes256Gcm: { blob: new Uint8Array(48).fill(3), aad: null } },
  }).toBytes();
  fc.assert(fc.property(mutationsOf(valid), (bytes) => parsesOrRefuses(() => parseSealedKey(Buffer.from(bytes).toString('hex')))), { numRuns: RUNS.sealedKey });
  // The same behind a shared identity key's prefix (its key id and salt).
  const shared = Buffer.from(encodeSharedSealedKey(new Uint8Array(32).fill(4), new Uint8Array(32).fill(5), Buffer.from(valid).toString('hex')), 'hex');
  fc.assert(fc.property(mutationsOf(shared), (bytes) => parsesOrRefuses(() => parseSealedKey(parseSealedPackKey(Buffer.from(bytes).toString('hex')).sealed))), { numRuns: RUNS.sealedKey });
});

fuzz(`BCS of chain objects: a Repository (${RUNS.chainBcs})`, () => {
  const id = (n: number) => `0x${n.toString(16).padStart(64, '0')}`;
  const valid = Repository.serialize({
    id: id(1), version: 1n, name: 'app', owner: id(2), writers: { contents: [id(3)] }, protected: { contents: ['refs/heads/main'] }, head: 'refs/heads/main',
    hash_len: 20, refs: { id: id(4), size: 1n }, packs: { id: id(5), size: 0n }, pack_count: 0n, live_from: 0n, seq: 1n,
    log_head: new Uint8Array(32), private: false, readers: { contents: [] },
  }).toBytes();
  fc.assert(fc.property(mutationsOf(valid), (bytes) => parsesOrRefuses(() => fromChainBytes('a repository', () => Repository.parse(bytes)))), { numRuns: RUNS.chainBcs });
});

fuzz(`the push log's records: Pushed events (${RUNS.pushLog})`, () => {
  const id = (n: number) => `0x${n.toString(16).padStart(64, '0')}`;
  const valid = Events.Pushed.serialize({
    repository: id(1), seq: 3n, kind: 0, sender: id(2), timestamp_ms: 1000n,
    updates: [{ name: 'refs/heads/main', old: new Uint8Array(20), new: new Uint8Array(20).fill(1), forced: false }],
    pack: { chunks: [5n], size: 10n, sha256: new Uint8Array(32), sealed_key: null }, pack_index: 0n, live_from: 0n, log_head: new Uint8Array(32),
  }).toBytes();
  fc.assert(fc.property(mutationsOf(valid), (bytes) => parsesOrRefuses(() => pushEventFromBcs(bytes, 'digest'))), { numRuns: RUNS.pushLog });
});

fuzz(`git tree objects (${RUNS.tree})`, () => {
  const entry = (mode: string, name: string, fill: number) => Buffer.concat([Buffer.from(`${mode} ${name}\0`), Buffer.alloc(20, fill)]);
  const valid = Buffer.concat([entry('100644', 'a\\b.txt', 1), entry('40000', 'dir', 2), entry('160000', 'sub', 3), entry('120000', 'link', 4)]);
  fc.assert(fc.property(mutationsOf(valid), (bytes) => parsesOrRefuses(() => parseTree('f'.repeat(40), bytes))), { numRuns: RUNS.tree });
});

fuzz(`packs and their index, as show and verify --deep read them (${RUNS.pack})`, async () => {
  const repo = new ScratchRepo();
  try {
    const valid = repo.pack([repo.commit('one', { 'a.txt': 'x'.repeat(300), 'b.txt': 'y\n' })]);
    const reader = await PackObjectReader.open();
    try {
      let n = 0;
      await fc.assert(fc.asyncProperty(mutationsOf(valid, 1024), async (bytes) => {
        await parsesOrRefusesAsync(async () => {
          const oids = await reader.addPack(bytes, `#${n++}`);
          for (const oid of oids) await reader.findMissing(oid);
        });
      }), { numRuns: RUNS.pack });
    } finally {
      await reader.close();
    }
  } finally {
    repo.remove();
  }
});

fuzz.run();
