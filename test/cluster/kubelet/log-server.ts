/**
 * The kubelet's `/containerLogs/{namespace}/{pod}/{container}` endpoint, which kube-apiserver's `pods/log` proxies
 * to: the query decoded and checked as the kubelet does (PodLogOptions), the container's run chosen from its status
 * (`previous` is the last terminated run), and the same status codes and texts for each refusal, which the apiserver
 * passes on to its client (a 400 becomes a BadRequest with the text as its message).
 *
 * Served over TLS with a self-signed certificate, as a kubelet without a serving-certificate bootstrap does; the
 * apiserver has no kubelet CA configured, so it does not verify it. Requests are not authenticated: a kubelet's
 * defaults (anonymous access, AlwaysAllow) without an authentication webhook.
 */
import { createServer } from 'node:https';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Server as NetServer } from 'node:net';
import { readContainerLog, logTime } from './container-logs.ts';
import type { ReadOptions } from './container-logs.ts';
import type { ContainerFacts } from './status.ts';

/** What the endpoint needs to know of a pod the kubelet runs. */
export interface LoggedPod {
  /** Whether the pod's spec has a container (or init container) of that name. */
  hasContainer(name: string): boolean;
  /** The container's status as the kubelet last computed it. */
  status(name: string): ContainerFacts | undefined;
  /** The log file of one run, by its container ID, and whether that run is still going. */
  run(containerID: string): { path: string; running(): boolean } | undefined;
}

export type PodLookup = (namespace: string, name: string) => LoggedPod | undefined;

type Decoded = { options: ReadOptions; previous: boolean } | { status: number; body: string };

/** Query booleans as the apiserver's codec reads them: absent, `0` or `false` (any case) is false, anything else true. */
const flag = (query: URLSearchParams, key: string) => {
  const value = query.get(key);
  return value !== null && value !== '0' && value.toLowerCase() !== 'false';
};

const INTEGER = /^[+-]?\d+$/;

/** PodLogOptions from the query, and its validation, as the kubelet's handler does them. */
export function decodeLogQuery(query: URLSearchParams, nowMs: number): Decoded {
  const params = new URLSearchParams(query);
  // The older `tail` parameter: `all` means no tail.
  const tail = params.get('tail');
  if (tail) {
    if (tail === 'all') params.delete('tailLines');
    else params.set('tailLines', tail);
  }
  const undecodable = { status: 400, body: '{"message": "Unable to decode query."}' };
  const integer = (key: string): number | undefined | null => {
    const value = params.get(key);
    if (value === null) return undefined;
    return INTEGER.test(value) ? Number(value) : null;
  };
  const tailLines = integer('tailLines');
  const limitBytes = integer('limitBytes');
  const sinceSeconds = integer('sinceSeconds');
  if (tailLines === null || limitBytes === null || sinceSeconds === null) return undecodable;
  const sinceTimeText = params.get('sinceTime');
  let sinceTimeMs: number | undefined;
  if (sinceTimeText) {
    if (!/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)$/.test(sinceTimeText)) return undecodable;
    sinceTimeMs = Date.parse(sinceTimeText);
  }
  const invalid = { status: 422, body: '{"message": "Invalid request."}' };
  if (tailLines !== undefined && tailLines < 0) return invalid;
  if (limitBytes !== undefined && limitBytes < 1) return invalid;
  if (sinceSeconds !== undefined && sinceTimeMs !== undefined) return invalid;
  if (sinceSeconds !== undefined && sinceSeconds < 1) return invalid;
  const sinceMs = sinceSeconds !== undefined ? nowMs - sinceSeconds * 1000 : sinceTimeMs;
  return {
    previous: flag(params, 'previous'),
    options: {
      ...(tailLines === undefined ? {} : { tailLines }),
      ...(limitBytes === undefined ? {} : { limitBytes }),
      ...(sinceMs === undefined ? {} : { since: logTime(sinceMs) }),
      timestamps: flag(params, 'timestamps'),
      follow: flag(params, 'follow'),
    },
  };
}

/** Which run's log to read, or why there is none: the kubelet's validateContainerLogStatus. */
export function chooseRun(podName: string, name: string, status: ContainerFacts | undefined, previous: boolean): { containerID: string } | { error: string } {
  const fail = (error: string) => ({ error });
  if (!status) return fail(`container "${name}" in pod "${podName}" is not available`);
  const last = status.lastState;
  const state = status.state;
  if (previous) {
    return last?.containerID ? { containerID: last.containerID } : fail(`previous terminated container "${name}" in pod "${podName}" not found`);
  }
  if ('running' in state) return { containerID: status.containerID! };
  if ('terminated' in state) {
    const id = state.terminated.containerID || last?.containerID;
    return id ? { containerID: id } : fail(`container "${name}" in pod "${podName}" is terminated`);
  }
  if (last) return last.containerID ? { containerID: last.containerID } : fail(`container "${name}" in pod "${podName}" is terminated`);
  const reason = state.waiting.reason;
  if (reason === 'ErrImagePull') return fail(`container "${name}" in pod "${podName}" is waiting to start: image can't be pulled`);
  if (reason === 'ImagePullBackOff') return fail(`container "${name}" in pod "${podName}" is waiting to start: trying and failing to pull image`);
  return fail(`container "${name}" in pod "${podName}" is waiting to start: ${reason}`);
}

const PATH = /^\/containerLogs\/([^/]*)\/([^/]*)\/([^/]*)$/;

async function serve(lookup: PodLookup, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const url = new URL(req.url ?? '/', 'https://kubelet');
  const match = req.method === 'GET' ? PATH.exec(url.pathname) : null;
  const reply = (status: number, body: string) => {
    res.writeHead(status, { 'Content-Type': 'text/plain; charset=utf-8' }).end(body);
  };
  if (!match) return reply(404, '404 page not found\n');
  const [namespace, podName, container] = match.slice(1).map(decodeURIComponent) as [string, string, string];
  if (!podName) return reply(400, '{"message": "Missing podID."}');
  if (!container) return reply(400, '{"message": "Missing container name."}');
  if (!namespace) return reply(400, '{"message": "Missing podNamespace."}');
  const decoded = decodeLogQuery(url.searchParams, Date.now());
  if ('status' in decoded) return reply(decoded.status, decoded.body);
  const pod = lookup(namespace, podName);
  if (!pod) return reply(404, `pod "${podName}" does not exist`);
  if (!pod.hasContainer(container)) return reply(404, `container "${container}" not found in pod "${podName}"`);
  const chosen = chooseRun(podName, container, pod.status(container), decoded.previous);
  if ('error' in chosen) return reply(400, chosen.error);
  const run = pod.run(chosen.containerID);
  if (!run) return reply(400, `failed to open log file for container "${container}" in pod "${podName}": no such file or directory`);
  res.writeHead(200, { 'Content-Type': 'text/plain; charset=utf-8', 'Transfer-Encoding': 'chunked' });
  res.flushHeaders();
  const gone = new AbortController();
  res.on('close', () => gone.abort());
  const sink = {
    write: (chunk: Buffer) => (res.destroyed ? false : res.write(chunk) || new Promise<boolean>((resolve) => {
      res.once('drain', () => resolve(true));
      res.once('close', () => resolve(false));
    })),
  };
  await readContainerLog(run.path, decoded.options, run.running, sink, gone.signal);
  res.end();
}

/** Serves the endpoint on an already listening socket (the node's address, bound inside the node's namespace). */
export function startLogServer(socket: NetServer, certificate: { cert: Buffer; key: Buffer }, lookup: PodLookup, log: (line: string) => void): Server {
  const server = createServer(certificate, (req, res) => {
    serve(lookup, req, res).catch((err) => {
      log(`kubelet: containerLogs ${req.url}: ${err?.message ?? err}`);
      if (!res.headersSent) res.writeHead(500).end(String(err?.message ?? err));
      else res.destroy();
    });
  });
  server.listen(socket);
  return server;
}
