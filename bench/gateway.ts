// The provider's gateway's own costs (docs/architecture.md, The provider's gateway): bytes kept per release of build
// output; a signed `status` round trip (signing, HTTP, signature check; the cluster reads answer at once, so the
// API server's time is not in it); a followed line from the gateway's log source to the follower (p50/p95; the
// kubelet's and API server's stream are not in it); and the gateway's memory with 100 followers. The log source is
// an in-process AppWindow writing a line per pod every 100 ms: the figures are the gateway's, not the cluster's.
import { Ed25519Keypair } from '@mysten/sui/keypairs/ed25519';
import { randomBytes } from 'node:crypto';
import { canonicalRequest, formatAuthorization } from '../src/core/signed-request.ts';
import { Gateway, serveGateway } from '../src/gitops/gateway/server.ts';
import { releaseOutputConfigMap } from '../src/gitops/templates/release-output.ts';
import type { AppWindow } from '../src/ports/app-window.ts';
import type { LeaseInfo } from '../src/ports/market.ts';
import type { V1Pod } from '@kubernetes/client-node';
import { verifyPersonalMessage } from '../src/sui/personal-message.ts';

const quantile = (values: number[], q: number) => [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor(q * values.length))]!;

function keptBytes(): void {
  const app = { apiVersion: 'gitops.walrus-git.dev/v1alpha1' as const, kind: 'WalrusApp' as const, metadata: { name: 'lease-0123456789abcdef', namespace: 'tenant-x', uid: 'u' }, spec: { repository: 'walrus://0x1' } };
  const npm = Array.from({ length: 40 }, (_, i) => `npm warn deprecated package-${i}@1.0.0: use something else`).join('\n') + '\nadded 312 packages, and audited 313 packages in 9s\n';
  const tests = Array.from({ length: 60 }, (_, i) => `ok ${i + 1} - case ${i}`).join('\n') + '\nnot ok 61 - adds two numbers\n  ---\n  expected: 3\n  actual: 4\n';
  const typical = { commit: 'a'.repeat(40), configHash: '0123456789', attempt: 1, result: 'TestsFailed', time: new Date().toISOString(), steps: [
    { name: 'checkout', exitCode: 0, output: 'Fetched 3 packs (1.2 MiB), checked out aaaaaaaaaaaa\n' }, { name: 'manifest', exitCode: 0, output: '' },
    { name: 'build', exitCode: 0, output: npm }, { name: 'test', exitCode: 1, reason: 'Error', output: tests }, { name: 'pack', output: '' },
  ] };
  const worst = { ...typical, steps: typical.steps.map((step) => ({ ...step, output: 'x'.repeat(100) + '\n'.repeat(1) + 'y'.repeat(200_000) })) };
  const size = (release: typeof typical) => Buffer.byteLength(JSON.stringify(releaseOutputConfigMap(app, release)));
  console.log(`build output kept per release: typical npm build + failing test ${size(typical)} bytes; worst case (every step over its bound) ${size(worst)} bytes; 10 kept per app`);
}

async function gatewayFigures(short: boolean): Promise<void> {
  const tenant = Ed25519Keypair.generate();
  const providerId = `0x${'55'.repeat(32)}`;
  const leases = new Map<string, LeaseInfo>();
  const written = new Map<string, number>();
  // A replica whose app container runs: the gateway follows only a started container.
  const pods = [{ metadata: { name: 'p-0' }, status: { containerStatuses: [{ name: 'app', state: { running: {} } }] } }] as V1Pod[];
  const window: AppWindow = {
    readApp: async () => null, readDeployment: async () => null, listPods: async () => pods, listEvents: async () => [], listConfigMaps: async () => [],
    readLog: async () => '',
    followLog: async function* (_pod, _container, _options, signal) {
      for (let i = 0; !signal.aborted; i++) {
        await new Promise((resolve) => setTimeout(resolve, 100));
        const line = `${Date.now()} line ${i}`;
        written.set(line, performance.now());
        yield line;
      }
    },
  };
  const gateway = new Gateway({
    providerId, window, verify: verifyPersonalMessage, now: () => Date.now(), log: () => {},
    market: { getLease: async (id) => leases.get(id)!, providerCapHolder: async () => `0x${'22'.repeat(32)}` },
  }, { followersPerLease: 1, followers: 1000 });
  const served = await serveGateway(gateway, '127.0.0.1', 0);
  const leaseOf = () => {
    const id = `0x${randomBytes(32).toString('hex')}`;
    leases.set(id, { id, tenant: tenant.toSuiAddress(), provider: providerId } as LeaseInfo);
    return id;
  };
  const signedGet = async (path: string, lease: string, signal?: AbortSignal) => {
    const timeMs = Date.now();
    const nonce = randomBytes(16).toString('hex');
    const { signature } = await tenant.signPersonalMessage(new TextEncoder().encode(canonicalRequest({ method: 'GET', path, lease, timeMs, nonce })));
    return fetch(`${served.url}${path}`, { headers: { authorization: formatAuthorization({ address: tenant.toSuiAddress(), timeMs, nonce, signature }) }, ...(signal ? { signal } : {}) });
  };

  const statusLease = leaseOf();
  const times: number[] = [];
  for (let i = 0; i < (short ? 20 : 100); i++) {
    const started = performance.now();
    await (await signedGet(`/v1/leases/${statusLease}/status`, statusLease)).json();
    times.push(performance.now() - started);
  }
  console.log(`signed status round trip (client signs, gateway verifies; no cluster time): p50 ${quantile(times, 0.5).toFixed(1)} ms, p95 ${quantile(times, 0.95).toFixed(1)} ms`);

  global.gc?.();
  const before = process.memoryUsage();
  const followers = short ? 20 : 100;
  const abort = new AbortController();
  const delays: number[] = [];
  const streams = await Promise.all(Array.from({ length: followers }, async () => {
    const lease = leaseOf();
    const response = await signedGet(`/v1/leases/${lease}/logs?follow=1&tail=0`, lease, abort.signal);
    // Wrapped: an async function returning the reading promise would adopt it, and Promise.all would wait for its end.
    return { reading: (async () => {
      const decoder = new TextDecoder();
      let pending = '';
      try {
        for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
          pending += decoder.decode(chunk, { stream: true });
          let newline: number;
          while ((newline = pending.indexOf('\n')) >= 0) {
            const { line } = JSON.parse(pending.slice(0, newline)) as { line: string };
            pending = pending.slice(newline + 1);
            const at = written.get(line);
            if (at !== undefined) delays.push(performance.now() - at);
          }
        }
      } catch {
        // aborted
      }
    })() };
  }));
  await new Promise((resolve) => setTimeout(resolve, short ? 2000 : 5000));
  global.gc?.();
  const during = process.memoryUsage();
  console.log(`${gateway.followers} followers: gateway process heap +${((during.heapUsed - before.heapUsed) / 2 ** 20).toFixed(1)} MiB, rss +${((during.rss - before.rss) / 2 ** 20).toFixed(1)} MiB (the followers' clients share the process)`);
  console.log(`line written by the log source → seen by its follower: p50 ${quantile(delays, 0.5).toFixed(1)} ms, p95 ${quantile(delays, 0.95).toFixed(1)} ms over ${delays.length} lines`);
  abort.abort();
  await Promise.allSettled(streams.map((stream) => stream.reading));
  await served.close();
}

export async function run(short: boolean): Promise<void> {
  keptBytes();
  await gatewayFigures(short);
}
