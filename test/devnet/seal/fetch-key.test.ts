import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { Ed25519Keypair } from '@mysten/sui/keypairs/ed25519';
import { Transaction } from '@mysten/sui/transactions';
import { fromBase64, toBase64 } from '@mysten/sui/utils';
import { bls12_381 } from '@noble/curves/bls12-381.js';
import { checkFetchKey, parseFetchKeyRequest, personalMessage, signedRequest, validatePtb, type KeyRequestContext } from '../../../src/devnet/seal/fetch-key.ts';
import { KeyServerError } from '../../../src/devnet/seal/errors.ts';
import type { PolicyOutcome } from '../../../src/devnet/seal/policy.ts';

/**
 * The key server's checks, one by one and in the real server's order, with the chain replaced by a plain object
 * (the end-to-end behaviour with the stock SDK is in key-servers.test.ts).
 */
const PKG = `0x${'ab'.repeat(32)}`;
const REPO = `0x${'cd'.repeat(32)}`;

/** A transaction kind's programmable transaction, as clients send it (the kind's tag byte stripped). */
async function kind(build: (tx: Transaction) => void): Promise<Uint8Array> {
  const tx = new Transaction();
  build(tx);
  return (await tx.build({ onlyTransactionKind: true })).slice(1);
}

const approve = (id: number[], fn = 'seal_approve', pkg = PKG) => (tx: Transaction) => {
  tx.moveCall({ target: `${pkg}::repository::${fn}`, arguments: [tx.pure.vector('u8', id), tx.sharedObjectRef({ objectId: REPO, initialSharedVersion: 3, mutable: false })] });
};

async function request(ptb: Uint8Array, user: Ed25519Keypair, options: { creationTime?: number; ttlMin?: number; mvrName?: string; tamper?: 'session' | 'user' } = {}) {
  const session = Ed25519Keypair.generate();
  const creationTime = options.creationTime ?? Date.now();
  const ttlMin = options.ttlMin ?? 10;
  const message = personalMessage(PKG, session.getPublicKey().toRawBytes(), creationTime, ttlMin);
  let { signature } = await user.signPersonalMessage(new TextEncoder().encode(message));
  if (options.tamper === 'user') signature = toBase64(fromBase64(signature).map((b, i) => (i === 5 ? b ^ 1 : b)));
  const encKey = bls12_381.G1.Point.BASE.multiply(7n).toBytes();
  const encVerificationKey = bls12_381.G2.Point.BASE.multiply(7n).toBytes();
  const body = {
    ptb: toBase64(ptb),
    enc_key: toBase64(encKey),
    enc_verification_key: toBase64(encVerificationKey),
    request_signature: '',
    certificate: { user: user.toSuiAddress(), session_vk: toBase64(session.getPublicKey().toRawBytes()), creation_time: creationTime, ttl_min: ttlMin, signature, ...(options.mvrName ? { mvr_name: options.mvrName } : {}) },
  };
  const parsed = parseFetchKeyRequest({ ...body, request_signature: toBase64(new Uint8Array(64)) });
  let sessionSignature = await session.sign(signedRequest(ptb, parsed));
  if (options.tamper === 'session') sessionSignature = sessionSignature.map((b, i) => (i === 0 ? b ^ 1 : b));
  return parseFetchKeyRequest({ ...body, request_signature: toBase64(sessionSignature) });
}

function context(outcome: PolicyOutcome = { approved: true }, overrides: Partial<KeyRequestContext> = {}): KeyRequestContext & { senders: string[] } {
  const senders: string[] = [];
  return {
    senders,
    now: Date.now(),
    packageExists: async (id) => id === PKG,
    verifyUserSignature: async (message, signature, address) => {
      const { verifyPersonalMessageSignature } = await import('@mysten/sui/verify');
      return verifyPersonalMessageSignature(message, signature, { address }).then(() => true, () => false);
    },
    policy: async (_ptb, sender) => {
      senders.push(sender);
      return outcome;
    },
    ...overrides,
  };
}

async function fails(promise: Promise<unknown>, status: number, error: string, message?: string): Promise<void> {
  try {
    await promise;
  } catch (e) {
    assert.instance(e, KeyServerError, String(e));
    assert.equal([(e as KeyServerError).status, (e as KeyServerError).error], [status, error]);
    if (message !== undefined) assert.is((e as KeyServerError).message, message);
    return;
  }
  assert.unreachable('the request was approved');
}

const messages = suite('the signed messages');

messages('the personal message matches the key server\'s regression (signed_message.rs)', () => {
  // Its creation time is in ms: 1622548800 ms is 1970-01-19 18:42:28 UTC.
  const vk = fromBase64('DX2rNYyNrapO+gBJp1sHQ2VVsQo2ghm7aA9wVxNJ13U=');
  assert.is(
    personalMessage('0x0000c457b42d48924087ea3f22d35fd2fe9afdf5bdfe38cc51c0f14f3282f6d5', vk, 1622548800, 30),
    'Accessing keys of package 0x0000c457b42d48924087ea3f22d35fd2fe9afdf5bdfe38cc51c0f14f3282f6d5 for 30 mins from 1970-01-19 18:42:28 UTC, session key DX2rNYyNrapO+gBJp1sHQ2VVsQo2ghm7aA9wVxNJ13U=',
  );
});

messages.run();

const ptb = suite('validatePtb');

ptb('takes seal_approve* calls of one package and returns their key ids', async () => {
  const bytes = await kind((tx) => {
    approve([1, 2])(tx);
    approve([3], 'seal_approve_reader')(tx);
  });
  const valid = validatePtb(toBase64(bytes));
  assert.is(valid.packageId, PKG);
  assert.equal(valid.innerIds.map((id) => [...id]), [[1, 2], [3]]);
});

ptb('refuses what the real server refuses, with its messages', async () => {
  const refuse = (b64: string, why: string) => {
    try {
      validatePtb(b64);
    } catch (e) {
      assert.equal([(e as KeyServerError).error, (e as KeyServerError).message], ['InvalidPTB', `Invalid PTB: ${why}`]);
      return;
    }
    assert.unreachable(why);
  };
  refuse('%%%', 'Invalid Base64');
  refuse(toBase64(new Uint8Array([9, 9, 9])), 'Invalid BCS');
  refuse(toBase64(new Uint8Array([0, 0])), 'Empty PTB input or command');
  refuse(toBase64(await kind((tx) => { for (let i = 0; i < 101; i++) approve([i])(tx); })), 'Too many commands in PTB (more than 100)');
  refuse(toBase64(await kind(approve([1], 'is_writer'))), 'Invalid function or package id');
  refuse(toBase64(await kind((tx) => { approve([1])(tx); approve([2], 'seal_approve', `0x${'ef'.repeat(32)}`)(tx); })), 'Invalid function or package id');
  refuse(toBase64(await kind((tx) => { tx.splitCoins(tx.gas, [1]); })), 'Invalid first command');
  refuse(toBase64(await kind((tx) => {
    tx.moveCall({ target: `${PKG}::repository::seal_approve`, arguments: [tx.sharedObjectRef({ objectId: REPO, initialSharedVersion: 3, mutable: false })] });
  })), 'Invalid first parameter for seal_approve');
  refuse(toBase64(await kind((tx) => {
    tx.moveCall({ target: `${PKG}::repository::seal_approve`, arguments: [tx.pure.u64(5)] });
  })), 'Invalid BCS for first parameter for seal_approve');
  refuse(toBase64(await kind((tx) => {
    tx.moveCall({ target: `${PKG}::repository::seal_approve`, arguments: [tx.pure.vector('u8', [1]), tx.gas] });
  })), 'Only pure inputs are allowed');
});

ptb.run();

const check = suite('checkFetchKey');

check('approves a well-formed request after the policy ran as the certificate\'s user', async () => {
  const user = Ed25519Keypair.generate();
  const r = await request(await kind(approve([7, 8])), user);
  const ctx = context();
  const { fullIds } = await checkFetchKey(r, ctx);
  assert.equal(ctx.senders, [user.toSuiAddress()]);
  assert.equal([...fullIds[0]!], [...Array(32).fill(0xab), 7, 8]);
});

check('each check answers its own error, in the real server\'s order', async () => {
  const user = Ed25519Keypair.generate();
  const good = await kind(approve([1]));
  await fails(checkFetchKey(await request(await kind(approve([1], 'seal_approve', `0x${'01'.repeat(32)}`)), user), context()), 403, 'InvalidPackage', 'Invalid package ID');
  await fails(checkFetchKey(await request(good, user, { mvrName: '@walrus/git' }), context()), 403, 'InvalidMVRName');
  await fails(checkFetchKey(await request(good, user, { ttlMin: 31 }), context()), 403, 'InvalidCertificate', 'Invalid certificate time or ttl');
  await fails(checkFetchKey(await request(good, user, { creationTime: Date.now() + 5_000 }), context()), 403, 'InvalidCertificate');
  await fails(checkFetchKey(await request(good, user, { creationTime: Date.now() - 11 * 60_000 }), context()), 403, 'InvalidCertificate');
  await fails(checkFetchKey(await request(good, user, { tamper: 'user' }), context()), 403, 'InvalidSignature', 'Invalid user signature');
  await fails(checkFetchKey(await request(good, user, { tamper: 'session' }), context()), 403, 'InvalidSessionSignature', 'Invalid session key signature');
  // The certificate's time is checked before its signature: an expired and badly signed one is InvalidCertificate.
  await fails(checkFetchKey(await request(good, user, { ttlMin: 31, tamper: 'user' }), context()), 403, 'InvalidCertificate');
  // And the PTB before anything: a bad PTB with a bad certificate is InvalidPTB.
  await fails(checkFetchKey(await request(await kind(approve([1], 'nope')), user, { ttlMin: 31 }), context()), 403, 'InvalidPTB');
});

check('the dry run decides: a missing function is an invalid PTB, any other failure a denial with its description', async () => {
  const user = Ed25519Keypair.generate();
  const r = await request(await kind(approve([1], 'seal_approve_missing')), user);
  await fails(checkFetchKey(r, context({ approved: false, kind: 'FunctionNotFound', description: 'FunctionNotFound in command 0' })), 403, 'InvalidPTB', 'Invalid PTB: The seal_approve function was not found on the module');
  await fails(checkFetchKey(await request(await kind(approve([1])), user), context({ approved: false, kind: 'MoveAbort', description: 'MoveAbort(…, 32) in command 0' })), 403, 'NoAccess', 'Access denied: MoveAbort(…, 32) in command 0');
});

check.run();

const parse = suite('parseFetchKeyRequest');

parse('rejects bodies serde would not accept, before any check (422)', async () => {
  const user = Ed25519Keypair.generate();
  const r = await request(await kind(approve([1])), user);
  const body = {
    ptb: r.ptb, enc_key: toBase64(r.encKeyBytes), enc_verification_key: toBase64(r.encVerificationKey), request_signature: toBase64(r.requestSignature),
    certificate: { user: r.certificate.user, session_vk: toBase64(r.certificate.sessionVk), creation_time: r.certificate.creationTime, ttl_min: r.certificate.ttlMin, signature: r.certificate.signature },
  };
  assert.is(parseFetchKeyRequest(body).certificate.user, user.toSuiAddress());
  for (const bad of [{ enc_key: toBase64(new Uint8Array(48)) }, { enc_key: 'AAAA' }, { request_signature: 'AA==' }, { certificate: { ...body.certificate, ttl_min: -1 } }, { certificate: undefined }]) {
    assert.throws(() => parseFetchKeyRequest({ ...body, ...bad }), (e: Error & { status?: number }) => e.status === 422 && /Failed to deserialize the JSON body/.test(e.message));
  }
});

parse.run();
