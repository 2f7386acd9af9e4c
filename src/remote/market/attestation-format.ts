/** `git walrus attestations`: a commit's tallies, one per build key, in words or as JSON. Pure. */
import type { TallyView } from '../../core/attestation.ts';

export interface KeyedTally {
  buildKey: string;
  tally: TallyView;
}

/** One block per build key: its status, how many committed and revealed, the windows, then each digest pair and who revealed it. */
export function formatAttestations(commit: string, tallies: KeyedTally[], nowMs: number): string {
  if (tallies.length === 0) return `no provider has attested a build of ${commit}\n`;
  const lines: string[] = [];
  for (const { buildKey, tally } of tallies) {
    const groups = new Map<string, string[]>();
    for (const r of tally.revealed) groups.set(`${r.tarSha256} ${r.manifestRoot}`, [...(groups.get(`${r.tarSha256} ${r.manifestRoot}`) ?? []), r.provider]);
    const status = tally.status === 'agreed' ? `agreed: reproduced by ${tally.revealed.length} providers` : tally.status === 'disputed' ? `DISPUTED: ${groups.size} different builds` : 'pending';
    lines.push(`build key ${buildKey}: ${status} (${tally.committed.length} committed, ${tally.revealed.length} revealed)`);
    if (nowMs < tally.commitUntilMs) lines.push(`  commitments open until ${new Date(tally.commitUntilMs).toISOString()}; reveals follow`);
    else if (nowMs < tally.revealUntilMs) lines.push(`  reveals open until ${new Date(tally.revealUntilMs).toISOString()}`);
    for (const [digests, providers] of groups) {
      const [tar, root] = digests.split(' ');
      lines.push(`  tar sha256 ${tar}`, `  manifest root ${root}`, ...providers.map((p) => `    revealed by ${p}`));
    }
  }
  return `${lines.join('\n')}\n`;
}
