import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { silentLog } from '../../src/core/log.ts';
import { LeaseSecretsRefusedError } from '../../src/core/lease-secrets.ts';
import { openNetwork } from '../../src/main/context.ts';
import { changeSecrets, readSecrets } from '../../src/remote/market/lease-secrets.ts';
import { commit, initWorkRepo } from '../../scripts/harness/world.ts';
import { embeddedFront } from '../support/network-fronts.ts';
import type { NetworkFront } from '../support/network-fronts.ts';
import { identity } from '../support/identity.ts';
import { filesUnder } from '../support/files-under.ts';

/**
 * `git walrus secrets` on the devnet, through real git and the CLI: the tenant's refusals before anything is stored,
 * set / list / rotate / unset, the provider's tool step reading them (`secrets export`), the key servers refusing a
 * stranger, another lease's provider and, after close, the provider; and the values in no file of the network's
 * state (chain and every Walrus blob) nor in any message.
 */

const VALUE_1 = 'tok-3f9a1c7e5b2d-first';
const VALUE_2 = "tok-88e0b4'd2a6-second";
const CERT = 'cert-body-77c1e0a9\nline two\n';

const test = suite<{ front: NetworkFront }>('git walrus secrets on the devnet');

test.before(async (context) => {
  context.front = await embeddedFront.open();
});

test.after(async ({ front }) => {
  await front.close();
});

test('the tenant sets, lists, rotates and unsets; the provider reads them; strangers, another provider and a closed lease get nothing; no value is stored in the clear', async ({ front }) => {
  const w = front.world();
  try {
    const src = await initWorkRepo(w, 'src');
    await commit(w, src, 'app.txt', 'hello\n');
    await w.ok(src, ['walrus', 'init', 'app', '--private']);
    await w.ok(src, ['push', '-q', 'walrus', 'main']);
    const pat = identity();
    const quinn = identity();
    const stranger = identity();
    const register = async (who: { env: NodeJS.ProcessEnv }) => (await w.ok('.', ['walrus', 'provider', 'register', '--stake', '10', '--price', '1MIST', '--endpoint', 'https://p.example'], { env: who.env })).trim();
    const p1 = await register(pat);
    const p2 = await register(quinn);
    const lease = (await w.ok(src, ['walrus', 'lease', 'open', 'walrus', '--provider', p1, '--deposit', '4'])).trim();
    const other = (await w.ok(src, ['walrus', 'lease', 'open', 'walrus', '--provider', p2, '--deposit', '4'])).trim();
    const all: string[] = [];
    const run = async (args: string[], env?: NodeJS.ProcessEnv) => {
      const result = await w.run(src, ['walrus', 'secrets', ...args], env ? { env } : {});
      all.push(result.stdout, result.stderr);
      return result;
    };

    // Refused before anything is stored, in words that never repeat a value.
    const refusals: [string[], RegExp, NodeJS.ProcessEnv?][] = [
      [['set', lease, `1TOKEN=${VALUE_1}`], /NAME=value 1 has no valid secret name/],
      [['set', lease, VALUE_1], /NAME=value 1 has no valid secret name/],
      [['set', lease, `BIG=${'x'.repeat(32 * 1024 + 1)}`], /secret BIG is 32769 bytes, over the limit of 32768 bytes/],
      [['set', lease, '--from-file', `CERT=${w.path('missing.pem')}`], /secret CERT: cannot read .*missing\.pem \(no such file\); nothing was stored/],
      [['set', lease, `TOKEN=${VALUE_1}`], /only the tenant of lease .* sets or reads its secrets/, stranger.env],
      [['set', lease, `TOKEN=${VALUE_1}`], /only the tenant of lease .* sets or reads its secrets/, pat.env],
      [['unset', lease, 'TOKEN'], /holds no secret TOKEN/],
    ];
    for (const [args, message, env] of refusals) {
      const result = await run(args, env);
      assert.is.not(result.code, 0, args.join(' '));
      assert.match(result.stderr, message);
    }
    assert.match((await run(['list', lease])).stderr, /has no secrets/);

    writeFileSync(w.path('cert.pem'), CERT);
    const set = await run(['set', lease, `API_TOKEN=${VALUE_1}`, '--from-file', `CERT=${w.path('cert.pem')}`]);
    assert.is(set.code, 0, set.stderr);
    assert.is(set.stdout.trim(), '1');
    const listed = JSON.parse((await run(['list', lease, '--json'])).stdout) as { version: number; secrets: { name: string; version: number }[] };
    assert.is(listed.version, 1);
    assert.equal(listed.secrets.map((s) => [s.name, s.version]), [['API_TOKEN', 1], ['CERT', 1]]);

    // The provider's tool step, as a pod runs it: a file its shell sources.
    const exported = async (who: { env: NodeJS.ProcessEnv }, extra: string[] = []) => {
      const file = w.path(`env-${Math.random().toString(36).slice(2)}`);
      const result = await run(['export', lease, '--to', file, ...extra], who.env);
      return { ...result, file: existsSync(file) ? readFileSync(file, 'utf8') : null, mode: existsSync(file) ? statSync(file).mode & 0o777 : null };
    };
    const first = await exported(pat);
    assert.is(first.code, 0, first.stderr);
    assert.is(first.mode, 0o600);
    assert.is(first.file, `API_TOKEN='${VALUE_1}'\nCERT='${CERT}'\n`);

    // Rotation: a new version; unset: another, without the name.
    assert.is((await run(['set', lease, `API_TOKEN=${VALUE_2}`])).stdout.trim(), '2');
    const second = await exported(pat);
    assert.ok(second.file!.startsWith(`API_TOKEN='tok-88e0b4'\\''d2a6-second'\n`), second.file!);
    // The build Job's build-secrets step: only the names the plan lists, each of which must be set; none listed, nothing.
    const names = (text: string) => {
      const file = w.path(`names-${Math.random().toString(36).slice(2)}`);
      writeFileSync(file, text);
      return ['--names-from', file];
    };
    const onlyToken = await exported(pat, names('API_TOKEN\n'));
    assert.is(onlyToken.code, 0, onlyToken.stderr);
    assert.is(onlyToken.file, `API_TOKEN='tok-88e0b4'\\''d2a6-second'\n`);
    const missing = await exported(pat, names('API_TOKEN\nNPM_TOKEN\n'));
    assert.is.not(missing.code, 0);
    assert.match(missing.stderr, new RegExp(`walrus\\.buildSecrets names NPM_TOKEN, which lease ${lease} has not set: run git walrus secrets set ${lease} NPM_TOKEN=…`));
    assert.is(missing.file, null, 'nothing written');
    const none = await exported(pat, names(''));
    assert.is(none.code, 0, none.stderr);
    assert.is(none.file, null);
    assert.is((await run(['unset', lease, 'CERT'])).stdout.trim(), '3');
    const third = JSON.parse((await run(['list', lease, '--json'])).stdout) as { version: number; secrets: { name: string; version: number }[] };
    assert.equal(third.secrets.map((s) => [s.name, s.version]), [['API_TOKEN', 2]]);

    // Another lease's provider has no cap of this lease's provider: the CLI refuses; the key servers refuse a stranger.
    const foreign = await exported(quinn);
    assert.is.not(foreign.code, 0);
    assert.match(foreign.stderr, /does not hold the ProviderCap of provider/);
    assert.is(foreign.file, null);
    const network = await openNetwork({ env: { ...w.env, ...stranger.env }, log: silentLog, role: 'setup' });
    try {
      const market = await network.market();
      const deps = { market, ledger: network.ledger, blobStore: network.blobStore, keyService: network.keyService! };
      const asTenant = await readSecrets(deps, await market.getLease(lease), { lease }).then(() => 'opened', (error: Error) => error);
      assert.instance(asTenant, LeaseSecretsRefusedError);
      assert.is((asTenant as LeaseSecretsRefusedError).abortName, 'ENotTenant');
      // quinn's own cap, for a lease quinn does not serve: the key servers run the provider policy and refuse it.
      const quinnNet = await openNetwork({ env: { ...w.env, ...quinn.env }, log: silentLog, role: 'setup' });
      try {
        const quinnMarket = await quinnNet.market();
        const quinnDeps = { market: quinnMarket, ledger: quinnNet.ledger, blobStore: quinnNet.blobStore, keyService: quinnNet.keyService! };
        const cap = await quinnMarket.providerCapId(p2);
        const asOther = await readSecrets(quinnDeps, await quinnMarket.getLease(lease), { lease, cap }).then(() => 'opened', (error: Error) => error);
        assert.instance(asOther, LeaseSecretsRefusedError);
        assert.is((asOther as LeaseSecretsRefusedError).abortName, 'ENotProvider');
        // And a change written past the CLI by a stranger is refused by the chain.
        const forced = await changeSecrets(deps, other, new Map([['X', 'y']]), []).then(() => 'stored', (error: Error) => error.message);
        assert.match(forced, /only the tenant of lease/);
      } finally {
        await quinnNet.close();
      }
    } finally {
      await network.close();
    }

    // After close: no new version, and the provider gets no key of any.
    await w.ok(src, ['walrus', 'lease', 'close', lease]);
    const closed = await run(['set', lease, `API_TOKEN=${VALUE_1}`]);
    assert.is.not(closed.code, 0);
    assert.match(closed.stderr, /lease .* is closed: its secrets no longer change/);
    const after = await exported(pat);
    assert.is.not(after.code, 0);
    assert.match(after.stderr, /the lease is closed: its secrets no longer change and its provider gets no keys of them/);
    assert.is(after.file, null);

    // No value in any message, nor in any file of the network's state (the chain, every Walrus blob).
    for (const value of [VALUE_1, VALUE_2, CERT.trim().split('\n')[0]!]) {
      for (const text of all.filter((_, i) => i % 2 === 1)) assert.not.ok(text.includes(value), `a message holds a value: ${text}`);
      for (const file of filesUnder(front.stateDir(w))) assert.not.ok(readFileSync(file).includes(value), `${file} holds a value`);
    }
  } finally {
    w.remove();
  }
});

test.run();
