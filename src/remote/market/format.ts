/**
 * Text for the market commands: providers, leases and deploy records as people read them, amounts in SUI (exact,
 * from MIST) and times in UTC. Pure.
 */
import type { RecordReproduction } from '../../core/attestation.ts';
import { formatPrice, formatSui } from '../../core/sui-amount.ts';
import { leaseAccrualAt } from '../../contract/lease-accrual.ts';
import { visibleLine } from '../../core/terminal-text.ts';
import { leaseEndLine } from '../../core/lease-end.ts';
import type { DeployedRecord, LeaseInfo, MarketParams, ProviderInfo } from '../../ports/market.ts';

const time = (ms: number) => new Date(ms).toISOString().replace('.000Z', 'Z');
/** A duration in the largest unit that states it exactly: `7 days`, `1 h`, `90 min`, `1500 ms`. */
export function formatDuration(ms: number): string {
  for (const [unit, size] of [['days', 86_400_000], ['h', 3_600_000], ['min', 60_000], ['s', 1000]] as const) {
    if (ms >= size && ms % size === 0) return `${ms / size} ${unit === 'days' && ms === size ? 'day' : unit}`;
  }
  return `${ms} ms`;
}

/** A duration rounded down to its largest whole unit, for estimates: `57 days`, `3 h`. */
export function formatApproxDuration(ms: number): string {
  for (const [unit, size] of [['days', 86_400_000], ['h', 3_600_000], ['min', 60_000], ['s', 1000]] as const) {
    if (ms >= size) return `${Math.floor(ms / size)} ${unit}`;
  }
  return `${ms} ms`;
}

/** Where a provider stands: bonded, or unbonding until a time. */
export function providerStatus(p: ProviderInfo, nowMs: number): string {
  if (p.unbondsAtMs === null) return 'bonded';
  return p.unbondsAtMs <= nowMs ? 'unbonded (stake withdrawable)' : `unbonding until ${time(p.unbondsAtMs)}`;
}

/** `git walrus providers`: one line per provider, widest columns padded. */
export function formatProviders(providers: ProviderInfo[], params: MarketParams, nowMs: number): string {
  const header = ['PROVIDER', 'STAKE', 'PRICE', 'ACTIVE', 'COMPLETED', 'STATUS', 'ENDPOINT'];
  const rows = providers.map((p) => [
    p.id,
    formatSui(p.stake),
    `${p.pricePerMs} MIST/ms`,
    String(p.activeLeases),
    String(p.completedLeases),
    p.stake < params.minStake && p.unbondsAtMs === null ? 'below minimum stake' : providerStatus(p, nowMs),
    visibleLine(p.endpoint),
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (cells: string[]) => cells.map((c, i) => (i === cells.length - 1 ? c : c.padEnd(widths[i]!))).join('  ');
  const footer = `minimum stake ${formatSui(params.minStake)}, unbonding delay ${formatDuration(params.unbondingMs)}, minimum lease ${formatDuration(params.minLeaseMs)}`;
  return `${[line(header), ...rows.map(line)].join('\n')}\n${providers.length === 0 ? 'no provider has registered yet\n' : ''}${footer}\n`;
}

export function formatProvider(p: ProviderInfo, nowMs: number): string {
  const attributes = Object.entries(p.attributes).map(([k, v]) => `${visibleLine(k)}=${visibleLine(v)}`).join(', ');
  return [
    `provider  ${p.id}`,
    `owner     ${p.owner}`,
    `stake     ${formatSui(p.stake)}${p.slashed > 0n ? ` (${formatSui(p.slashed)} slashed)` : ''}`,
    `price     ${formatPrice(p.pricePerMs)}`,
    `endpoint  ${visibleLine(p.endpoint)}`,
    ...(attributes ? [`attributes ${attributes}`] : []),
    `leases    ${p.activeLeases} active, ${p.completedLeases} completed, ${p.providerClosedLeases} closed by the provider`,
    `status    ${providerStatus(p, nowMs)}`,
  ].join('\n') + '\n';
}

/** When the escrow runs dry at the lease's price, counted from its last settlement. */
export function fundedUntilMs(lease: LeaseInfo): number {
  return lease.settledUntilMs + Number(lease.escrow / lease.pricePerMs);
}

/** What has accrued since the last settlement, as settlement at `nowMs` would compute it (capped at the escrow). */
export function accruedAt(lease: LeaseInfo, nowMs: number): bigint {
  return leaseAccrualAt(lease, nowMs).accrued;
}

/**
 * `requiredReproductions`: how many other providers must attest each release's build first (0: none);
 * `reproduction`: what they attested of the last deploy.
 */
export function formatLease(lease: LeaseInfo, nowMs: number, requiredReproductions = 0, reproduction?: RecordReproduction): string {
  const accrued = accruedAt(lease, nowMs);
  const lines = [
    `lease       ${lease.id}`,
    `state       ${lease.state}`,
    ...(lease.end ? [`ended       ${leaseEndLine(lease.end)}`] : []),
    `tenant      ${lease.tenant}`,
    `provider    ${lease.provider}`,
    `repository  ${lease.repository} ${visibleLine(lease.ref)}`,
    `price       ${formatPrice(lease.pricePerMs)}`,
    `escrow      ${formatSui(lease.escrow - accrued)}${accrued > 0n ? ` (${formatSui(accrued)} accrued to the provider since ${time(lease.settledUntilMs)})` : ''}`,
    `earned      ${formatSui(lease.earned + accrued)} not yet claimed`,
  ];
  if (lease.state === 'open') lines.push(`funded until ${time(fundedUntilMs(lease))}`);
  lines.push(lease.lastDeploy ? `deployed    ${lease.lastDeploy.commit} as ${lease.lastDeploy.artifact} at ${time(lease.lastDeploy.atMs)}` : 'deployed    nothing yet');
  if (lease.lastDeploy && reproduction) lines.push(...reproductionLines(reproduction).map((line) => `            ${line}`));
  lines.push(`url         ${lease.url ? visibleLine(lease.url) : 'none (the provider states one while it serves the app)'}`);
  if (requiredReproductions > 0) lines.push(`reproduced  each release waits for ${requiredReproductions} other provider${requiredReproductions === 1 ? '' : 's'} to attest the same build`);
  return `${lines.join('\n')}\n`;
}

/** One deploy record and, when verified, what was found. */
export interface DeploymentLine {
  record: DeployedRecord;
  /** Problems found by --verify; empty = verified; undefined = not verified. */
  problems?: string[];
  /** Why --verify could not check the artifact (encrypted, and the signer may not read it): the rest was checked. */
  unchecked?: string;
  /** What other providers' attestations say of the record's build; undefined where it was not read. */
  reproduction?: RecordReproduction;
}

/** "reproduced by N providers", then each other provider's differing build with its key. */
export function reproductionLines(reproduction: RecordReproduction): string[] {
  const n = reproduction.reproducedBy.length;
  return [
    `reproduced by ${n} provider${n === 1 ? '' : 's'}`,
    ...reproduction.differing.map((d) => `differs: provider ${d.provider} built tar sha256 ${d.tarSha256} under build key ${d.buildKey}`),
  ];
}

export function formatDeployments(lines: DeploymentLine[]): string {
  if (lines.length === 0) return 'no deployment recorded for this repository\n';
  return lines
    .map(({ record: r, problems, unchecked, reproduction }) => {
      const reproduced = reproduction ? reproductionLines(reproduction).map((line) => `\n    ${line}`).join('') : '';
      const head = `${time(r.atMs)}  ${r.commit}  ${visibleLine(r.ref)}\n    provider ${r.provider}  lease ${r.lease}\n    artifact ${r.artifact}  sha256 ${r.sha256}${r.url ? `\n    url ${visibleLine(r.url)}` : ''}`
        + (r.leaseEnd ? `\n    lease ended: ${leaseEndLine(r.leaseEnd)}` : '') + reproduced;
      if (problems === undefined) return head;
      if (problems.length > 0) return `${head}\n${problems.map((p) => `    PROBLEM: ${visibleLine(p)}`).join('\n')}`;
      if (unchecked !== undefined) return `${head}\n    verified: the commit was pushed to ${r.ref}\n    NOT CHECKED: ${unchecked}`;
      return `${head}\n    verified: the artifact matches its sha256 and the commit was pushed to ${r.ref}`;
    })
    .join('\n') + '\n';
}

/**
 * `--json` of the market commands: the port's records as they are, amounts as strings of MIST (JSON has no 64-bit
 * integers), times as Clock milliseconds, plus what the text output derives (status, accrued, funded until).
 */
export function marketJson(value: unknown): string {
  return `${JSON.stringify(value, (_key, v: unknown) => (typeof v === 'bigint' ? v.toString() : v), 2)}\n`;
}

export function providersJson(providers: ProviderInfo[], params: MarketParams, nowMs: number): string {
  return marketJson({ params, providers: providers.map((p) => ({ ...p, status: providerStatus(p, nowMs) })) });
}

export function providerJson(p: ProviderInfo, nowMs: number): string {
  return marketJson({ ...p, status: providerStatus(p, nowMs) });
}

export function leaseJson(lease: LeaseInfo, nowMs: number, requiredReproductions = 0, reproduction?: RecordReproduction): string {
  return marketJson({
    ...lease, accrued: accruedAt(lease, nowMs), fundedUntilMs: lease.state === 'open' ? fundedUntilMs(lease) : null, requiredReproductions,
    ...(reproduction ? { lastDeployReproduction: reproduction } : {}),
  });
}

/**
 * `verified` is absent without --verify; with it, `problems` lists what did not hold. `reproducedBy` lists the other
 * providers whose attestations revealed the record's tar sha256, `differing` their reveals of another.
 */
export function deploymentsJson(lines: DeploymentLine[]): string {
  return marketJson(lines.map(({ record, problems, reproduction }) => ({
    ...record, ...(problems === undefined ? {} : { verified: problems.length === 0, problems }), ...(reproduction ?? {}),
  })));
}
