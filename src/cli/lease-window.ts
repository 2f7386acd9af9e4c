/**
 * `git walrus lease status|logs|events <lease>`: the tenant's window on its app, through the gateway of the lease's
 * provider (docs/architecture.md, The provider's gateway). The endpoint is the one the provider registered on chain.
 */
import { UsageError } from '../core/errors.ts';
import type { MarketLedger } from '../ports/market.ts';
import type { EventView, LogRecord, ReleaseView, StatusView } from '../ports/gateway-api.ts';
import type { CliApp } from './app.ts';
import { ExitError } from './app.ts';
import { gatewayGet, gatewayJson, ndjson, type GatewayTarget, type Signer } from './gateway-client.ts';

export interface WindowArgs {
  json: boolean;
  follow?: boolean;
  since?: string;
  tail?: number;
  replica?: number;
  previous?: boolean;
  /** `--build` alone: '' (the latest release); `--build <commit>`: that commit. */
  build?: string;
  wait?: string;
}

/** The gateway of the lease's provider, from the chain. */
export async function gatewayOf(market: MarketLedger, leaseId: string): Promise<GatewayTarget> {
  const lease = await market.getLease(leaseId);
  const provider = await market.getProvider(lease.provider);
  return { endpoint: provider.endpoint, provider: provider.id, lease: lease.id };
}

export async function leaseStatus(app: CliApp, target: GatewayTarget, sign: Signer, args: WindowArgs): Promise<void> {
  if (args.wait !== undefined) return waitFor(app, target, sign, args.wait, args.json);
  const status = await gatewayJson<StatusView>(target, statusPath(target), sign);
  app.stdout(args.json ? `${JSON.stringify(status, null, 2)}\n` : formatStatus(status));
}

export async function leaseEvents(app: CliApp, target: GatewayTarget, sign: Signer, args: WindowArgs): Promise<void> {
  const { events } = await gatewayJson<{ events: EventView[] }>(target, `/v1/leases/${target.lease}/events`, sign);
  if (args.json) return app.stdout(`${JSON.stringify(events, null, 2)}\n`);
  if (events.length === 0) return app.stdout('no events\n');
  app.stdout(events.map((event) => `${event.time}  ${event.type.padEnd(7)}  ${event.reason.padEnd(20)}  ${event.object}${event.count > 1 ? ` (x${event.count})` : ''}: ${event.message}`).join('\n') + '\n');
}

export async function leaseLogs(app: CliApp, target: GatewayTarget, sign: Signer, args: WindowArgs): Promise<void> {
  if (args.build !== undefined) return buildLogs(app, target, sign, args);
  const query = new URLSearchParams();
  if (args.tail !== undefined) query.set('tail', String(args.tail));
  if (args.since !== undefined) query.set('since', String(durationSeconds(args.since)));
  if (args.replica !== undefined) query.set('replica', String(args.replica));
  if (args.previous) query.set('previous', '1');
  if (args.follow) query.set('follow', '1');
  const controller = new AbortController();
  const stop = () => controller.abort();
  process.once('SIGINT', stop);
  try {
    const response = await gatewayGet(target, `/v1/leases/${target.lease}/logs${query.size ? `?${query}` : ''}`, sign, controller.signal);
    for await (const entry of ndjson<LogRecord>(response)) {
      if (args.json) app.stdout(`${JSON.stringify(entry)}\n`);
      else if ('notice' in entry) app.log.info(`-- ${entry.notice}`);
      else app.stdout(`${args.replica === undefined ? `[${entry.pod}] ` : ''}${entry.line}\n`);
    }
  } catch (error) {
    if (!controller.signal.aborted) throw error;
  } finally {
    process.off('SIGINT', stop);
  }
}

async function buildLogs(app: CliApp, target: GatewayTarget, sign: Signer, args: WindowArgs): Promise<void> {
  const { releases } = await gatewayJson<{ releases: ReleaseView[] }>(target, `/v1/leases/${target.lease}/releases`, sign);
  const wanted = args.build ? args.build.toLowerCase() : undefined;
  const release = wanted ? releases.find((candidate) => candidate.commit.startsWith(wanted)) : releases.find((candidate) => candidate.output);
  if (!release) throw new UsageError(wanted ? `the provider keeps no release of ${wanted} for lease ${target.lease} (it keeps the last ten builds)` : `lease ${target.lease} has no build output yet`);
  if (args.json) return app.stdout(`${JSON.stringify(release, null, 2)}\n`);
  const lines = [`release ${release.commit}: ${release.result} at ${release.time}`];
  if (!release.output) lines.push('(its build output is no longer kept)');
  for (const step of release.output?.steps ?? []) {
    const end = step.exitCode === undefined ? 'did not run' : `exit ${step.exitCode}${step.reason ? ` (${step.reason})` : ''}`;
    lines.push(`----- ${step.name}: ${end}${step.cutBytes ? `, first ${step.cutBytes} bytes not kept` : ''}`);
    if (step.output) lines.push(step.output.replace(/\n$/, ''));
  }
  app.stdout(`${lines.join('\n')}\n`);
}

/** Where one commit (a prefix of its id, lower case) is, in the words `--wait` prints. */
export function waitStage(status: StatusView, wanted: string): string {
  const is = (value: string | null | undefined) => Boolean(value?.startsWith(wanted));
  if (status.ended) return `lease ended: ${status.ended.message}`;
  if (is(status.refused?.commit)) return `refused: ${status.refused!.reason}`;
  if (is(status.serving?.commit) && status.phase === 'Live') return `live at ${status.url ?? '(no URL)'}`;
  // The build Job's `test` step runs the app's tests.
  if (is(status.building?.commit)) return status.building!.step === 'test' ? 'testing' : 'building';
  if (is(status.head) && is(status.serving?.commit)) return 'rolling out';
  if (is(status.head)) return status.phase === 'RollingOut' ? 'rolling out' : 'building';
  return 'queued';
}

/** Follows one commit to live or to its refusal, printing each stage once (Heroku's push output does the same). */
async function waitFor(app: CliApp, target: GatewayTarget, sign: Signer, commit: string, json: boolean): Promise<void> {
  const wanted = commit.toLowerCase();
  if (!/^[0-9a-f]{4,64}$/.test(wanted)) throw new UsageError(`--wait takes a commit id (hex), not '${commit}'`);
  let said = '';
  for (;;) {
    const status = await gatewayJson<StatusView>(target, statusPath(target), sign);
    const stage = waitStage(status, wanted);
    if (stage !== said) {
      said = stage;
      app.stdout(json ? `${JSON.stringify({ commit: wanted, stage, time: new Date().toISOString() })}\n` : `${wanted.slice(0, 12)}: ${stage}\n`);
      if (stage.startsWith('refused')) app.stdout(json ? '' : `${status.refused!.message}\n`);
    }
    // A refusal or an ended lease ends the command with 1 (the stage and its message are printed): the exit code is runCli's to set.
    if (stage.startsWith('refused') || status.ended) throw new ExitError('', 1);
    if (stage.startsWith('live')) return;
    await new Promise((resolve) => setTimeout(resolve, 2000));
  }
}

function statusPath(target: GatewayTarget): string {
  return `/v1/leases/${target.lease}/status`;
}

export function formatStatus(status: StatusView): string {
  const lines = [
    `lease       ${status.lease}`,
    `app         ${status.app.namespace}/${status.app.name}`,
    `phase       ${status.phase}: ${status.message}`,
    `replicas    ${status.replicas.ready}/${status.replicas.desired} ready, ${status.replicas.updated} updated`,
    `serving     ${status.serving ? `${status.serving.commit}${status.serving.since ? ` since ${status.serving.since}` : ''}` : '(nothing)'}`,
    `url         ${status.url ?? '(none)'}`,
  ];
  if (status.building) {
    const { commit, attempt, step } = status.building;
    lines.push(`building    ${commit}${step ? ` (step ${step})` : ''}${attempt > 1 ? ` (attempt ${attempt})` : ''}`);
  }
  if (status.refused) {
    lines.push(`refused     ${status.refused.commit}: ${status.refused.reason} at ${status.refused.time}`);
    lines.push(...status.refused.message.split('\n').slice(0, 25).map((line) => `            ${line}`));
  }
  for (const pod of status.pods) {
    lines.push(`pod         ${pod.name}: ${pod.phase}${pod.ready ? ', ready' : ''}, ${pod.restarts} restarts${pod.commit ? `, ${pod.commit.slice(0, 12)}` : ''}`);
    for (const container of pod.containers.filter((candidate) => candidate.reason || candidate.lastTermination)) {
      const last = container.lastTermination ? `; last exit ${container.lastTermination.reason ?? 'Error'} (code ${container.lastTermination.exitCode})${container.lastTermination.finishedAt ? ` at ${container.lastTermination.finishedAt}` : ''}` : '';
      lines.push(`              ${container.name}: ${container.state}${container.reason ? ` ${container.reason}` : ''}${last}`);
    }
  }
  for (const condition of status.conditions) lines.push(`condition   ${condition.type}=${condition.status} ${condition.reason} (${condition.time}): ${condition.message.split('\n')[0]}`);
  return `${lines.join('\n')}\n`;
}

/** `90`, `30s`, `5m`, `2h`, `1d` in seconds. */
export function durationSeconds(text: string): number {
  const match = /^([0-9]{1,7})([smhd]?)$/.exec(text.trim());
  if (!match) throw new UsageError(`--since takes a duration (30s, 5m, 2h, 1d), not '${text}'`);
  return Number(match[1]) * ({ '': 1, s: 1, m: 60, h: 3600, d: 86400 } as Record<string, number>)[match[2]!]!;
}
