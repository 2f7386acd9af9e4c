import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { readdirSync, readFileSync } from 'node:fs';
import { silentLog } from '../../src/core/log.ts';
import { parseSealedPackKey } from '../../src/core/shared-pack-key.ts';
import { openNetwork } from '../../src/main/context.ts';
import { openLease } from '../../src/remote/market/open-lease.ts';
import { commit, initWorkRepo } from '../../scripts/harness/world.ts';
import type { World } from '../../scripts/harness/world.ts';
import { NETWORK_FRONTS } from '../support/network-fronts.ts';
import type { NetworkFront } from '../support/network-fronts.ts';
import { identity } from '../support/identity.ts';
import { filesUnder } from '../support/files-under.ts';

/**
 * A stranger may not read a private repository by leasing it to a provider of its own: the attack, step by step
 * through real git and `git walrus`, on each front of the devnet (the embedded network, and a `git walrus devnet`
 * server whose key servers answer over HTTP). The lease is refused by the CLI before any transaction, by the chain
 * when the CLI is bypassed, and the key servers refuse the provider of a lease whose tenant lost read access.
 */

const SECRET = 'the launch codes are 0000\n';

/** The secret is written nowhere but in the owner's own working copy: no file holds it, no secret.txt exists. */
function assertSecretNowhere(front: NetworkFront, w: World, ownersCopy: string): void {
  for (const root of [w.root, front.stateDir(w)]) {
    for (const file of filesUnder(root, [ownersCopy])) {
      assert.not.ok(file.endsWith('secret.txt'), `${file} exists`);
      assert.not.ok(readFileSync(file).includes(SECRET.trim()), `${file} holds the secret`);
    }
  }
}

/** The owner's private repository holding the secret, pushed: its working copy, URL, owner and id. */
async function privateRepository(w: World) {
  const src = await initWorkRepo(w, 'src');
  await commit(w, src, 'secret.txt', SECRET);
  const url = (await w.ok(src, ['walrus', 'init', 'privrepo', '--private'])).split('\n').at(-1)!;
  await w.ok(src, ['push', '-q', 'walrus', 'main']);
  const owner = (await w.ok(src, ['walrus', 'whoami'])).split('\n')[0]!;
  return { src, url, owner, repoId: url.slice('walrus://'.length) };
}

for (const factory of NETWORK_FRONTS) {
  const test = suite<{ front: NetworkFront }>(`a stranger's lease of a private repository (${factory.name})`);

  test.before(async (context) => {
    context.front = await factory.open();
  });

  test.after(async ({ front }) => {
    await front.close();
  });

  test('a stranger cannot lease a private repository to its own provider: refused by the CLI, then by the chain; the secret is never written', async ({ front }) => {
    const w = front.world();
    try {
      const { src, url, owner, repoId } = await privateRepository(w);
      const stranger = identity();

      const clone = await w.run('.', ['clone', url, 'cloned'], { env: stranger.env });
      assert.is.not(clone.code, 0);
      assert.match(clone.stderr, /is not one of its readers/);

      const registered = await w.run('.', ['walrus', 'provider', 'register', '--stake', '10', '--price', '1MIST', '--endpoint', 'https://evil.example'], { env: stranger.env });
      assert.is(registered.code, 0, registered.stderr);
      const provider = registered.stdout.trim();

      const opened = await w.run('.', ['walrus', 'lease', 'open', url, '--provider', provider, '--deposit', '4'], { env: stranger.env });
      assert.is.not(opened.code, 0, `the stranger's lease was opened: ${opened.stdout}`);
      assert.match(opened.stderr, new RegExp(`fatal: repository 'privrepo' \\(${repoId}\\) is private and belongs to ${owner}; ${stranger.address} cannot read it, so it cannot lease it: ask its owner to run \`git walrus readers add walrus://${repoId} ${stranger.address}\``));
      assert.not.match(opened.stderr, /transaction/);

      // Past the CLI: the same lease sent to the chain as a transaction of the stranger's.
      const network = await openNetwork({ env: { ...w.env, ...stranger.env }, log: silentLog, role: 'setup' });
      try {
        const market = await network.market();
        const forced = await market.openLease(provider, repoId, 'refs/heads/main', 4_000_000_000n).then(
          (lease) => `the chain opened lease ${lease.leaseId}`,
          (error: Error) => error.message,
        );
        assert.match(forced, new RegExp(`refused: the repository is private and the sender cannot read it: ask its owner to run \`git walrus readers add walrus://<repository> <address>\``));
        // `lease open` with a view of the repository from before the owner removed the stranger (a race): the chain's
        // refusal comes back in the same words as the CLI's own check.
        const stale = { ...(await network.ledger.getRepository(repoId)), readers: [stranger.address] };
        const raced = await openLease({ ledger: { getRepository: async () => stale }, market }, provider, repoId, 'refs/heads/main', 4_000_000_000n).then(
          (lease) => `the chain opened lease ${lease.leaseId}`,
          (error: Error) => error.message,
        );
        assert.is(raced, `repository 'privrepo' (${repoId}) is private and belongs to ${owner}; ${stranger.address} cannot read it, so it cannot lease it: ask its owner to run \`git walrus readers add walrus://${repoId} ${stranger.address}\``);
      } finally {
        await network.close();
      }

      assertSecretNowhere(front, w, w.path(src));
    } finally {
      w.remove();
    }
  });

  test('a tenant removed as a reader: its provider, which held the key of the history, gets none for a push made after (a new identity, refused by the key servers), and the secret is never written', async ({ front }) => {
    const w = front.world();
    try {
      const { src, url } = await privateRepository(w);
      const tenant = identity();
      await w.ok(src, ['walrus', 'readers', 'add', 'walrus', tenant.address]);

      const registered = await w.run('.', ['walrus', 'provider', 'register', '--stake', '10', '--price', '1MIST', '--endpoint', 'https://evil.example'], { env: tenant.env });
      assert.is(registered.code, 0, registered.stderr);
      const provider = registered.stdout.trim();
      const opened = await w.run('.', ['walrus', 'lease', 'open', url, '--provider', provider, '--deposit', '4'], { env: tenant.env });
      assert.is(opened.code, 0, opened.stderr);
      const lease = opened.stdout.trim();

      // While its tenant may read, the provider gets the key of the pack pushed so far (in memory: nothing written).
      const network = await openNetwork({ env: { ...w.env, ...tenant.env }, log: silentLog, role: 'setup' });
      const repoId = url.slice('walrus://'.length);
      const lastPack = async () => {
        const repository = await network.ledger.getRepository(repoId);
        // The Seal object in the pack's sealed key (of its identity key under a shared identity).
        const pack = (await network.ledger.listPacks(repoId, repository.packCount - 1))[0]!;
        return { repository, sealed: parseSealedPackKey(pack.sealedKey!).sealed };
      };
      try {
        const grant = { lease, cap: await (await network.market()).providerCapId(provider) };
        const before = await lastPack();
        const [key] = await network.keyService!.forLease(grant).open(before.repository, [before.sealed]);
        assert.is((await key!()).length, 32);

        await w.ok(src, ['walrus', 'readers', 'remove', 'walrus', tenant.address]);
        await commit(w, src, 'secret.txt', `${SECRET}and more\n`);
        await w.ok(src, ['push', '-q', 'walrus', 'main']);
        const after = await lastPack();
        const identityOf = async (sealedKey: string) => Buffer.from(await network.keyService!.identityOf(sealedKey)).toString('hex');
        assert.is.not(await identityOf(after.sealed), await identityOf(before.sealed), 'the push after the removal is under an identity the provider never held');
        const refused = await network.keyService!.forLease(grant).open(after.repository, [after.sealed]).then(() => 'the key servers gave the key', (error: { code: string }) => error.code);
        assert.is(refused, 'LEASE_TENANT_NOT_READER');
      } finally {
        await network.close();
      }
      const checkout = await w.run('.', ['walrus', 'checkout', url, w.path('stolen'), '--lease', lease], { env: tenant.env });
      assert.is.not(checkout.code, 0, 'the provider of a lease whose tenant lost read access checked the repository out');
      assert.match(checkout.stderr, new RegExp(`fatal: cannot decrypt the packs of repository 'privrepo' \\(0x[0-9a-f]{64}\\): tenant not a reader: the Seal key servers give ${tenant.address} no keys of 0x[0-9a-f]{64}'s repository under lease ${lease}, whose tenant may not read the repository`));
      // Checkout claims the directory first and leaves it as empty as it found it.
      assert.equal(readdirSync(w.path('stolen')), []);
      assertSecretNowhere(front, w, w.path(src));
    } finally {
      w.remove();
    }
  });

  test.run();
}
