/**
 * `git walrus verify` output: one line per check (passed or failed), every finding in full, the history rewrites
 * when `--deep` listed them, and a last line a reviewer can grep (`verified` or `FAILED`).
 */
import type { FindingCode } from './finding.ts';
import { abbreviate, formatTime, type Style } from './format-log.ts';
import type { VerifyReport } from './verify-repository.ts';

/** The checks in the order they run, each with the finding codes (by prefix) that fail it. */
const AREAS: Array<{ name: string; prefixes: string[]; passed: (r: VerifyReport) => string }> = [
  { name: 'certified', prefixes: ['CERT_'], passed: (r) => `every RPC's answer verified against the validators' certificates (${r.certified?.answers.length} RPC${r.certified?.answers.length === 1 ? '' : 's'})` },
  { name: 'push log', prefixes: ['LOG_'], passed: (r) => `${r.pushes} push events replay to the on-chain log_head ${r.logHead}` },
  { name: 'chain state', prefixes: ['STATE_'], passed: () => 'refs and pack table agree with the push events' },
  { name: 'packs', prefixes: ['BLOB_', 'PACK_'], passed: (r) => `${r.packsChecked} live packs (${r.bytesChecked} bytes): blob ids, sizes and sha256 match` },
  { name: 'history', prefixes: ['COMMIT_', 'HISTORY_'], passed: (r) => `${r.commitsChecked} commits that refs pointed to are present with their whole history` },
];

function inArea(code: FindingCode, prefixes: string[]): boolean {
  return prefixes.some((prefix) => code.startsWith(prefix));
}

export function formatVerifyText(report: VerifyReport, style: Style): string {
  const lines = [`repository ${report.repository}: seq ${report.seq}, log_head ${report.logHead}`];
  const certified = report.certified;
  if (certified) {
    lines.push(`certified: as of checkpoint ${certified.checkpoint}, epoch ${certified.epoch}, time ${new Date(certified.timestampMs).toISOString()} (version ${certified.version}, from ${certified.rpc})`);
    for (const answer of certified.answers) {
      if (answer.version !== undefined && answer.version !== certified.version) lines.push(`        RPC ${answer.rpc} lags: it proves version ${answer.version} (checkpoint ${answer.checkpoint}), not ${certified.version}`);
    }
  } else {
    lines.push('not certified: the state is as one RPC node reports it');
  }
  for (const area of AREAS) {
    if (area.name === 'history' && report.commitsChecked === undefined) continue;
    if (area.name === 'certified' && !certified) continue;
    const found = report.findings.filter((finding) => inArea(finding.code, area.prefixes));
    if (found.length === 0) lines.push(`ok      ${area.name}: ${area.passed(report)}`);
    else {
      lines.push(`${style.warn('FAILED')}  ${area.name}: ${found.length} problem${found.length === 1 ? '' : 's'}`);
      for (const finding of found) lines.push(`        ${finding.message}`);
    }
  }
  if (report.rewrites !== undefined) {
    lines.push(`history rewrites: ${report.rewrites.length === 0 ? 'none' : report.rewrites.length}`);
    for (const r of report.rewrites) {
      const change = r.kind === 'deleted' ? `${abbreviate(r.old ?? '')} → (none)` : `${r.old === null ? '(new)' : abbreviate(r.old)} → ${abbreviate(r.new ?? '')}`;
      lines.push(`        push ${r.seq}  ${formatTime(r.timestampMs)}  ${style.warn(r.kind)}  ${r.ref}  ${change}  by ${r.sender}  tx ${r.txDigest}`);
    }
  }
  const n = report.findings.length;
  lines.push(n === 0 ? 'verified: every check holds' : style.warn(`FAILED: ${n} problem${n === 1 ? '' : 's'} found`));
  return `${lines.join('\n')}\n`;
}

/** The report as JSON, with `ok` first: true exactly when there are no findings. */
export function formatVerifyJson(report: VerifyReport): string {
  return `${JSON.stringify({ ok: report.findings.length === 0, ...report }, null, 2)}\n`;
}
