/**
 * The gateway's HTTP front with real Sui signatures (the SDK's Ed25519 keys and verifier): who gets in, and what a
 * stranger, a replay, a stale time or another tenant's lease get. The lease and provider records stand for the chain's
 * and the cluster has no app yet, so an admitted request is answered NotDeployed (Ended, for a lease that ended). A
 * follow's replicas come and go in a cluster that stands for the API's pod list and log streams.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { Ed25519Keypair } from '@mysten/sui/keypairs/ed25519';
import { canonicalRequest, formatAuthorization } from '../../../src/core/signed-request.ts';
import { Gateway, serveGateway } from '../../../src/gitops/gateway/server.ts';
import { verifyPersonalMessage } from '../../../src/sui/personal-message.ts';
import type { V1Pod } from '@kubernetes/client-node';
import type { AppWindow } from '../../../src/ports/app-window.ts';
import { ANNOTATIONS } from '../../../src/gitops/templates/names.ts';
import type { LeaseInfo } from '../../../src/ports/market.ts';

const tenant = Ed25519Keypair.generate();
const owner = Ed25519Keypair.generate();
const stranger = Ed25519Keypair.generate();
const providerId = `0x${'55'.repeat(32)}`;
const lease = (id: string, who: Ed25519Keypair): LeaseInfo => ({
  id, tenant: who.toSuiAddress(), provider: providerId, repository: `0x${'77'.repeat(32)}`, ref: 'refs/heads/main', pricePerMs: 1n, escrow: 1n, earned: 0n,
  settledUntilMs: 0, state: 'open', lastDeploy: null, url: '', end: null,
});
const mine = lease(`0x${'44'.repeat(32)}`, tenant);
const theirs = lease(`0x${'66'.repeat(32)}`, stranger);
const closedAtMs = Date.parse('2026-11-29T05:00:00Z');
const ended: LeaseInfo = { ...lease(`0x${'88'.repeat(32)}`, tenant), state: 'closed', end: { reason: 'provider_unbonding', by: owner.toSuiAddress(), byTenant: false, atMs: closedAtMs } };
const leases = new Map([[mine.id, mine], [theirs.id, theirs], [ended.id, ended]]);
const emptyCluster: AppWindow = {
  readApp: async () => null, readDeployment: async () => null, listPods: async () => [], listEvents: async () => [], listConfigMaps: async () => [],
  readLog: async () => '', followLog: async function* () {},
};

const now = 1_800_000_000_000;
const gateway = new Gateway({
  providerId, window: emptyCluster, verify: verifyPersonalMessage, now: () => now, log: () => {},
  market: { getLease: async (id) => leases.get(id)!, providerCapHolder: async () => owner.toSuiAddress() },
});
const served = await serveGateway(gateway, '127.0.0.1', 0);

async function signed(key: Ed25519Keypair, path: string, leaseId: string, options: { timeMs?: number; nonce?: string } = {}) {
  const timeMs = options.timeMs ?? now;
  const nonce = options.nonce ?? Math.random().toString(16).slice(2).padEnd(16, '0');
  const { signature } = await key.signPersonalMessage(new TextEncoder().encode(canonicalRequest({ method: 'GET', path, lease: leaseId, timeMs, nonce })));
  return formatAuthorization({ address: key.toSuiAddress(), timeMs, nonce, signature });
}

async function get(path: string, authorization?: string) {
  const response = await fetch(`${served.url}${path}`, authorization ? { headers: { authorization } } : {});
  return { status: response.status, body: await response.json() as Record<string, unknown> };
}

const status = (id: string) => `/v1/leases/${id}/status`;

const auth = suite('the gateway lets in a lease\'s tenant and provider, nobody else');
auth('health needs no signature', async () => {
  assert.equal(await get('/v1/health'), { status: 200, body: { ok: true, provider: providerId } });
});
auth('the tenant and the holder of the provider\'s cap are answered', async () => {
  const asTenant = await get(status(mine.id), await signed(tenant, status(mine.id), mine.id));
  assert.is(asTenant.status, 200);
  assert.is(asTenant.body.phase, 'NotDeployed');
  assert.is((await get(status(mine.id), await signed(owner, status(mine.id), mine.id))).status, 200);
});
auth('the tenant of an ended lease is told why it ended, by whom and when, as the chain recorded it', async () => {
  const answer = await get(status(ended.id), await signed(tenant, status(ended.id), ended.id));
  assert.is(answer.status, 200);
  assert.is(answer.body.phase, 'Ended');
  assert.is(answer.body.message, 'the lease ended: closed by the provider, which is leaving the market (unbonding) at 2026-11-29T05:00:00Z');
  assert.equal(answer.body.ended, {
    reason: 'provider_unbonding', by: owner.toSuiAddress(), at: '2026-11-29T05:00:00.000Z',
    message: 'closed by the provider, which is leaving the market (unbonding) at 2026-11-29T05:00:00Z',
  });
});
auth('an unsigned request gets 401 saying how to sign', async () => {
  const answer = await get(status(mine.id));
  assert.is(answer.status, 401);
  assert.match(String(answer.body.why), /no Authorization header/);
});
auth('a stranger\'s signature gets 403 naming who may read', async () => {
  const answer = await get(status(mine.id), await signed(stranger, status(mine.id), mine.id));
  assert.is(answer.status, 403);
  assert.match(String(answer.body.why), new RegExp(`may be read by its tenant ${tenant.toSuiAddress()} and the holder of its provider's ProviderCap ${owner.toSuiAddress()}; the request was signed by ${stranger.toSuiAddress()}`));
});
auth('the tenant asking for another tenant\'s lease gets 403', async () => {
  const answer = await get(status(theirs.id), await signed(tenant, status(theirs.id), theirs.id));
  assert.is(answer.status, 403);
});
auth('a replayed request gets 401', async () => {
  const header = await signed(tenant, status(mine.id), mine.id);
  assert.is((await get(status(mine.id), header)).status, 200);
  const again = await get(status(mine.id), header);
  assert.is(again.status, 401);
  assert.match(String(again.body.why), /already served/);
});
auth('a request served before a restart is refused by the restarted gateway (its nonces are gone, the start is not)', async () => {
  const header = await signed(tenant, status(mine.id), mine.id);
  assert.is((await get(status(mine.id), header)).status, 200);
  // Restarted a second later: the same request is well within the time window.
  const restarted = await serveGateway(new Gateway({
    providerId, window: emptyCluster, verify: verifyPersonalMessage, now: () => now + 1000, log: () => {},
    market: { getLease: async (id) => leases.get(id)!, providerCapHolder: async () => owner.toSuiAddress() },
  }), '127.0.0.1', 0);
  try {
    const replayed = await fetch(`${restarted.url}${status(mine.id)}`, { headers: { authorization: header } });
    assert.is(replayed.status, 401);
    assert.match(String(((await replayed.json()) as { why: string }).why), /signed before the gateway started/);
  } finally {
    await restarted.close();
  }
});
auth('a stale time gets 401', async () => {
  const answer = await get(status(mine.id), await signed(tenant, status(mine.id), mine.id, { timeMs: now - 5 * 60_000 }));
  assert.is(answer.status, 401);
  assert.match(String(answer.body.why), /300 s behind the gateway's clock/);
});
auth('a signature over another path (or lease) gets 401', async () => {
  const header = await signed(tenant, `/v1/leases/${mine.id}/events`, mine.id);
  const answer = await get(status(mine.id), header);
  assert.is(answer.status, 401);
  assert.match(String(answer.body.why), /signature is not/);
});
auth('a bad parameter gets 400', async () => {
  const path = `/v1/leases/${mine.id}/logs?tail=lots`;
  assert.is((await get(path, await signed(tenant, path, mine.id))).status, 400);
});
auth('once the cap moves to a new key, the new key reads and the former holder gets 403 (as the chain has it, re-read)', async () => {
  const rotated = Ed25519Keypair.generate();
  let holder = owner.toSuiAddress();
  const rotating = await serveGateway(new Gateway({
    providerId, window: emptyCluster, verify: verifyPersonalMessage, now: () => now, log: () => {},
    market: { getLease: async (id) => leases.get(id)!, providerCapHolder: async () => holder },
  }, { chainCacheMs: 0 }), '127.0.0.1', 0);
  try {
    const ask = async (key: Ed25519Keypair) => (await fetch(`${rotating.url}${status(mine.id)}`, { headers: { authorization: await signed(key, status(mine.id), mine.id) } })).status;
    assert.equal([await ask(owner), await ask(rotated)], [200, 403]);
    holder = rotated.toSuiAddress();
    assert.equal([await ask(owner), await ask(rotated), await ask(tenant)], [403, 200, 200]);
  } finally {
    await rotating.close();
  }
});
auth.after(async () => {
  await served.close();
});
auth.run();

const follow = suite('a follow takes a rolling update\'s new replica and ends with the lease');
follow('a replica joins once its app has started, from its first line, said in one line; the lease\'s end ends the follow', async () => {
  const release = 'ab'.repeat(20);
  const pod = (name: string, app: 'waiting' | 'running', commit?: string): V1Pod => ({
    metadata: { name, ...(commit ? { annotations: { [ANNOTATIONS.commit]: commit } } : {}) },
    status: { containerStatuses: [{ name: 'app', image: 'app', imageID: '', ready: app === 'running', restartCount: 0, state: app === 'running' ? { running: {} } : { waiting: { reason: 'ContainerCreating' } } }] },
  });
  let pods = [pod('app-old', 'running')];
  let current: LeaseInfo = { ...mine };
  const lines: Record<string, string[]> = { 'app-old': ['old 1'], 'app-new': ['listening', 'new 1'] };
  const asked: string[] = [];
  const window: AppWindow = {
    ...emptyCluster,
    listPods: async () => pods,
    async *followLog(ref, _container, _options, signal) {
      asked.push(ref.name);
      yield* lines[ref.name]!;
      await new Promise((resolve) => signal.addEventListener('abort', resolve, { once: true }));
    },
  };
  const following = await serveGateway(new Gateway({
    providerId, window, verify: verifyPersonalMessage, now: () => now, log: () => {},
    market: { getLease: async () => current, providerCapHolder: async () => owner.toSuiAddress() },
  }, { podPollMs: 5, chainCacheMs: 0 }), '127.0.0.1', 0);
  try {
    const path = `/v1/leases/${mine.id}/logs?follow=1`;
    const response = await fetch(`${following.url}${path}`, { headers: { authorization: await signed(tenant, path, mine.id) } });
    assert.is(response.status, 200);
    const records: unknown[] = [];
    const reading = (async () => {
      let rest = '';
      for await (const chunk of response.body!.pipeThrough(new TextDecoderStream())) {
        rest += chunk;
        for (let end = rest.indexOf('\n'); end >= 0; end = rest.indexOf('\n')) {
          records.push(JSON.parse(rest.slice(0, end)));
          rest = rest.slice(end + 1);
        }
      }
    })();
    const until = async (what: string, check: () => boolean) => {
      for (let tries = 0; !check(); tries++) {
        if (tries > 400) assert.unreachable(`${what}: ${JSON.stringify(records)}`);
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
    };
    await until('the first replica\'s line', () => records.length === 1);
    // The rolling update: the new pod is listed before its container starts; it joins once it has.
    pods = [pod('app-old', 'running'), pod('app-new', 'waiting', release)];
    await new Promise((resolve) => setTimeout(resolve, 50));
    assert.equal(asked, ['app-old'], 'no log asked of a container that has not started');
    pods = [pod('app-new', 'running', release)];
    await until('the new replica\'s lines', () => records.length === 4);
    current = { ...mine, state: 'closed', end: { reason: 'closed_by_tenant', by: tenant.toSuiAddress(), byTenant: true, atMs: closedAtMs } };
    await reading;
    assert.equal(records, [
      { pod: 'app-old', container: 'app', line: 'old 1' },
      { notice: `following app-new, a new replica (release ${release.slice(0, 12)})` },
      { pod: 'app-new', container: 'app', line: 'listening' },
      { pod: 'app-new', container: 'app', line: 'new 1' },
      { notice: 'the lease ended: closed by the tenant at 2026-11-29T05:00:00Z; the follow ends' },
    ]);
  } finally {
    await following.close();
  }
});
follow.run();
