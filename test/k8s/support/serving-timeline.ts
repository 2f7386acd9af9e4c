/**
 * What served an app, moment by moment, while a test disturbs it: its pods (node, Ready, deleting), its Service's
 * Endpoints (ready and not-ready addresses) and what the ingress stand-in's nginx.conf sends its host to (the
 * upstream's servers, or the 503 of a backend with no ready endpoint). Sampled every 200 ms; only changes are kept,
 * with the client's failures marked in between, so a failed request can be laid beside the state that caused it.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { CoreV1Api } from '@kubernetes/client-node';
import type { KubeConfig, V1Pod } from '@kubernetes/client-node';

const SAMPLE_MS = 200;

export interface ServedApp {
  namespace: string;
  /** The Service's (and Endpoints') name. */
  name: string;
  labelSelector: string;
  /** The host its Ingress serves. */
  host: string;
  /** The ingress stand-in's directory (its nginx.conf). */
  ingressDir: string;
}

export class ServingTimeline {
  readonly #entries: string[] = [];
  readonly #started = Date.now();
  readonly #last = new Map<string, string>();
  readonly #app: ServedApp;
  #running = true;
  readonly #done: Promise<void>;

  constructor(kc: KubeConfig, app: ServedApp) {
    this.#app = app;
    this.#done = this.#loop(kc.makeApiClient(CoreV1Api));
  }

  /** Records an event of the test or the client at this moment. */
  mark(what: string): void {
    this.#entries.push(`${this.#at()} ${what}`);
  }

  async stop(): Promise<string> {
    this.#running = false;
    await this.#done;
    return this.#entries.join('\n');
  }

  #at(): string {
    return `+${((Date.now() - this.#started) / 1000).toFixed(1)}s`.padStart(7);
  }

  #record(kind: string, state: string): void {
    if (this.#last.get(kind) === state) return;
    this.#last.set(kind, state);
    this.#entries.push(`${this.#at()} ${kind}: ${state}`);
  }

  async #loop(core: CoreV1Api): Promise<void> {
    const { namespace, name, labelSelector } = this.#app;
    while (this.#running) {
      const [pods, endpoints, conf] = await Promise.all([
        core.listNamespacedPod({ namespace, labelSelector }).then((list) => list.items.map(describePod).sort().join('; '), (error: Error) => `unreadable (${error.message})`),
        core.readNamespacedEndpoints({ namespace, name }).then((e) => {
          const ready = (e.subsets ?? []).flatMap((s) => s.addresses ?? []).map((a) => a.ip).sort();
          const notReady = (e.subsets ?? []).flatMap((s) => s.notReadyAddresses ?? []).map((a) => a.ip).sort();
          return `ready [${ready.join(', ')}] not ready [${notReady.join(', ')}]`;
        }, (error: Error) => `unreadable (${error.message})`),
        readFile(join(this.#app.ingressDir, 'nginx.conf'), 'utf8').then((text) => routeOf(text, this.#app.host), () => 'unreadable'),
      ]);
      this.#record('pods', pods);
      this.#record('endpoints', endpoints);
      this.#record('ingress', conf);
      await new Promise((resolve) => setTimeout(resolve, SAMPLE_MS));
    }
  }
}

function describePod(pod: V1Pod): string {
  const ready = pod.status?.conditions?.find((c) => c.type === 'Ready');
  const state = ready?.status === 'True' ? 'Ready' : `not ready${ready?.reason ? ` (${ready.reason})` : ''}`;
  return `${pod.metadata?.name} ${pod.status?.podIP ?? '-'} on ${pod.spec?.nodeName ?? '-'} ${state}${pod.metadata?.deletionTimestamp ? ' deleting' : ''}`;
}

/** The servers nginx.conf sends `host` to, or what it answers instead. */
export function routeOf(conf: string, host: string): string {
  const server = conf.split('  server {').find((block) => block.includes(`server_name ${host};`));
  if (!server) return 'no server for the host';
  if (/return 503;/.test(server)) return 'return 503 (no ready endpoint)';
  const upstream = /proxy_pass http:\/\/([^;]+);/.exec(server)?.[1];
  const servers = upstream ? [...(new RegExp(`upstream ${upstream} \\{([^}]*)\\}`).exec(conf)?.[1] ?? '').matchAll(/server (\S+)/g)].map((m) => m[1]) : [];
  return `upstream [${servers.join(', ')}]`;
}
