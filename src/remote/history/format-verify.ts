/**
 * `git walrus verify` output: one line per check (passed or failed), every finding in full, the history rewrites
 * when `--deep` listed them, and a last line a reviewer can grep (`verified` or `FAILED`).
 */
import type { Finding, FindingCode } from './finding.ts';
import { abbreviate, formatTime, type Style } from './format-log.ts';
import type { VerifyReport } from './verify-repository.ts';

const AREAS: Array<{ name: string; codes: string; passed: (r: VerifyReport) => string }> = [
  { name: 'push log', codes: 'LOG_', passed: (r) => `${r.pushes} push events replay to the on-chain log_head ${r.logHead}` },
  { name: 'chain state', codes: 'STATE_', passed: () => 'refs and pack table agree with the push events' },
  { name: 'packs', codes: 'BLOB_|PACK_', passed: (r) => `${r.packsChecked} live packs (${r.bytesChecked} bytes): blob ids, sizes and sha256 match` },
  { name: 'history', codes: 'COMMIT_|HISTORY_', passed: (r) => `${r.commitsChecked} commits that refs pointed to are present with their whole history` },
];

function inArea(code: FindingCode, prefixes: string): boolean {
  return prefixes.split('|').some((prefix) => code.startsWith(prefix));
}

export function formatVerifyText(report: VerifyReport, style: Style): string {
  const lines = [`repository ${report.repository}: seq ${report.seq}, log_head ${report.logHead}`];
  for (const area of AREAS) {
    if (area.name === 'history' && report.commitsChecked === undefined) continue;
    const found = report.findings.filter((finding) => inArea(finding.code, area.codes));
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

export function formatVerifyJson(report: VerifyReport): string {
  const findings: Finding[] = report.findings;
  return `${JSON.stringify({ ok: findings.length === 0, ...report }, null, 2)}\n`;
}
