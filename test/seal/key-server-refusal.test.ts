/**
 * The key servers' refusals as the user reads them. On the embedded devnet's key servers (stock SealClient, in
 * process): a non-reader, a pack key sealed under another repository's id, and key servers whose clock is an hour
 * ahead (a session refused as expired even once renewed). The refusals the devnet cannot provoke (another package
 * version, an unknown package, an unreadable repository, a refused signature) from the bodies the real key server
 * answers, through the same translation.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import {
  ExpiredSessionKeyError, InvalidPackageError, InvalidParameterError, InvalidPTBError, InvalidUserSignatureError, NoAccessError,
} from '@mysten/seal';
import { Ed25519Keypair } from '@mysten/sui/keypairs/ed25519';
import { AbortCode } from '../../src/contract/abort-codes.ts';
import { newDataKey, newPackIdentity } from '../../src/core/pack-cipher.ts';
import { NotReaderError } from '../../src/core/read-access.ts';
import { KeyServerRefusalError, parseMoveAbort, refusalError } from '../../src/seal/key-server-refusal.ts';
import { closePrivateVault, openPrivateVault, vaultKeyService, type PrivateVault } from '../support/private-vault.ts';

type Context = PrivateVault;

/** The key servers' clock runs this far ahead of ours while they handle a request. */
let serverSkewMs = 0;

const service = (context: Context, key: Ed25519Keypair) =>
  vaultKeyService(context, key, {
    fetch: async (input, init) => {
      // The process's clock as the other suites of this run left it (one sets its own), moved only for the servers.
      const ours = Date.now;
      if (serverSkewMs !== 0) Date.now = () => ours() + serverSkewMs;
      try {
        return await context.network.keyServerFetch(input, init);
      } finally {
        Date.now = ours;
      }
    },
  });

async function refusal(promise: Promise<unknown>): Promise<Error> {
  try {
    await promise;
  } catch (error) {
    return error as Error;
  }
  assert.unreachable('the key servers gave the keys');
  throw new Error('unreachable');
}

const devnet = suite<Context>('key-server refusals on the devnet key servers');

devnet.before((context) => openPrivateVault(context, 'walrus-refusal-'));

devnet.after.each(() => {
  serverSkewMs = 0;
});

devnet.after(async (context) => {
  await closePrivateVault(context);
});

devnet('a non-reader (seal_approve aborts with ENoAccess) is told to ask the owner', async (context) => {
  const sealed = await service(context, context.ownerKey).seal(newPackIdentity(context.repository.id), newDataKey());
  const stranger = Ed25519Keypair.generate();
  const error = await refusal(service(context, stranger).open(context.repository, [sealed]));
  assert.instance(error, NotReaderError);
  assert.match(error.message, `${stranger.toSuiAddress()} is not one of its readers: ask its owner ${context.repository.owner}`);
});

devnet('a pack key sealed under another repository\'s id (EWrongKeyId) is refused to its very owner, and said so', async (context) => {
  const { id: elsewhere } = await context.owner.createRepository('elsewhere', 'refs/heads/main', { private: true });
  const keys = service(context, context.ownerKey);
  const misplaced = await keys.seal(newPackIdentity(elsewhere), newDataKey());
  const error = await refusal(keys.open(context.repository, [misplaced]));
  assert.instance(error, KeyServerRefusalError);
  assert.is((error as KeyServerRefusalError).code, 'SEALED_KEY_OUTSIDE_REPOSITORY');
  assert.match(error.message, `cannot decrypt the packs of repository 'vault' (${context.repository.id}): a pack's data key is sealed under an id outside this repository`);
  assert.match(error.message, `ask the owner ${context.repository.owner} to run \`git walrus gc\``);
});

devnet('key servers an hour ahead refuse the session even renewed: the user is told to fix the clock', async (context) => {
  const keys = service(context, context.ownerKey);
  const sealed = await keys.seal(newPackIdentity(context.repository.id), newDataKey());
  serverSkewMs = 60 * 60_000;
  const error = await refusal(keys.open(context.repository, [sealed]));
  assert.instance(error, KeyServerRefusalError);
  assert.is((error as KeyServerRefusalError).code, 'KEY_SERVER_CLOCK');
  assert.match(error.message, /this machine's clock and theirs differ/);
  assert.is(keys.sessionsSigned, 2, 'renewed once, silently, before giving up');
  serverSkewMs = 0;
  assert.is((await keys.open(context.repository, [sealed])).length, 1, 'the same service reads once the clocks agree');
});

devnet.run();

const bodies = suite('refusalError (the real key server\'s bodies)');

const PACKAGE = '0x' + 'ab'.repeat(32);
const repository = { id: '0x' + '12'.repeat(32), name: 'vault', owner: '0x' + '0f'.repeat(32) };
const signer = '0x' + '5e'.repeat(32);
/** `Access denied: ` and the dry run's ExecutionError as Sui prints it, for an abort of `module::function` with `code`. */
const denied = (code: number, module = 'repository', address = PACKAGE.slice(2)) => ({
  error: 'NoAccess',
  message: `Access denied: MoveAbort(MoveLocation { module: ModuleId { address: ${address}, name: Identifier("${module}") }, function: 41, instruction: 9, function_name: Some("seal_approve") }, ${code}) in command 0`,
});

bodies('parses the abort out of the dry run\'s error', () => {
  assert.equal(parseMoveAbort(denied(32).message), { address: PACKAGE, module: 'repository', functionName: 'seal_approve', code: 32 });
  assert.is(parseMoveAbort('Access denied: InsufficientGas'), null);
});

bodies('each refusal names its cause; what it cannot attribute stays generic or unexplained', () => {
  const of = (error: unknown, answers: { error: string; message: string }[]) => refusalError(error, answers, repository, PACKAGE, signer);
  assert.instance(of(new NoAccessError('r'), [denied(AbortCode.ENoAccess)]), NotReaderError);
  const version = of(new NoAccessError('r'), [denied(AbortCode.EWrongVersion)])!;
  assert.is(version.code, 'PACKAGE_VERSION');
  assert.match(version.message, /another version of the git-walrus package .*upgrade git-remote-walrus/);
  // An abort of another package's module is not ours to explain: the key servers' words are passed on.
  const foreign = of(new NoAccessError('r'), [denied(AbortCode.ENoAccess, 'repository', 'cd'.repeat(32))])!;
  assert.is(foreign.code, 'SEAL_ACCESS_DENIED');
  assert.match(foreign.message, /denied 0x5e5e.* the keys \(Access denied: MoveAbort/);
  assert.instance(of(new NoAccessError('r'), []), NotReaderError, 'no body seen: the contract\'s usual reason');
  const unknownPackage = of(new InvalidPackageError('r'), [{ error: 'InvalidPackage', message: 'Invalid package ID' }])!;
  assert.is(unknownPackage.code, 'SEAL_PACKAGE_UNKNOWN');
  assert.match(unknownPackage.message, `do not know package ${PACKAGE}`);
  const noFunction = of(new InvalidPTBError('r', 'x'), [{ error: 'InvalidPTB', message: 'Invalid PTB: The seal_approve function was not found on the module' }])!;
  assert.is(noFunction.code, 'SEAL_PACKAGE_MISMATCH');
  assert.is(of(new InvalidPTBError('r', 'x'), [{ error: 'InvalidPTB', message: 'Invalid PTB: Too many commands in PTB (more than 100)' }]), null);
  const unreadable = of(new InvalidParameterError('r'), [{ error: 'InvalidParameter', message: 'Invalid parameter to PTB: object not found' }])!;
  assert.is(unreadable.code, 'SEAL_REPOSITORY_UNREADABLE');
  assert.ok(unreadable.retryable);
  assert.match(unreadable.message, /it was deleted, or their full node has not seen it yet/);
  assert.is(of(new InvalidUserSignatureError('r'), [])!.code, 'SEAL_SIGNATURE_REFUSED');
  assert.is(of(new ExpiredSessionKeyError('r'), [])!.code, 'KEY_SERVER_CLOCK');
  assert.is(of(new Error('socket hang up'), []), null);
});

bodies.run();
