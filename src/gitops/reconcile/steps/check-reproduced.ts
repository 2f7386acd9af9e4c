import { judgeReproduction } from '../../../core/attestation.ts';
import { pinnedDigest } from '../../../core/image-reference.ts';
import { PROVIDER_ANNOTATIONS } from '../../api/labels.ts';
import { resolveSpec } from '../../api/types.ts';
import { NEXT, stalling, waiting, type StepResult } from '../outcome.ts';
import type { Pass } from '../pass.ts';

/** How often a release waiting for attestations looks at its tally again. */
export const ATTESTATION_POLL_MS = 10_000;

/**
 * A lease whose tenant requires reproductions (`lease … --require-reproduced k`): the head's build rolls out only once
 * k providers other than this one revealed the same tar sha256 and manifest root under its build key. Until then the
 * pass waits; once another provider revealed a different pair the commit is held (Stalling Disputed, naming who built
 * what). Either way the running release keeps serving. A commit already rolled out is never held after the fact.
 *
 * The build key names the build image as `spec.build.image` writes it (the pack step has no API access to learn
 * what its kubelet pulled), so a lease that requires reproduction is only built for release in an image named by
 * digest: a tag names no particular bytes, and two providers' keys that both say `node:22` would agree on nothing.
 */
export async function checkReproduced(pass: Pass): Promise<StepResult> {
  const gate = pass.deps.reproduction;
  const lease = pass.app.metadata.annotations?.[PROVIDER_ANNOTATIONS.lease];
  if (!gate || !lease) return NEXT;
  const commit = pass.fact('head').commit;
  if (pass.status.lastAppliedRevision === commit) return NEXT;
  const required = await gate.attestations.requiredReproductions(lease);
  if (required === 0) {
    pass.drop('Reproduced');
    return NEXT;
  }
  const short = commit.slice(0, 12);
  const image = resolveSpec(pass.app.spec).build.image;
  if (pinnedDigest(image) === null) {
    const message = `${short} is held: its lease requires reproduction, and the build image ${image} is named by tag, which names no particular bytes, ` +
      'so no other provider could build under its build key; the provider names spec.build.image by digest (<image>@sha256:…); the running release keeps serving';
    pass.set('Reproduced', 'False', 'BuildImageNotPinned', message);
    return stalling('BuildImageNotPinned', message);
  }
  const artifact = pass.fact('artifact');
  if (!artifact.buildKey || !artifact.manifestRoot) {
    const message = `${short} was built without a build report, so it has no build key other providers could attest under; the running release keeps serving`;
    pass.set('Reproduced', 'False', 'NoBuildKey', message);
    return stalling('NoBuildKey', message);
  }
  const tally = await gate.attestations.tally({ repositoryId: pass.fact('repositoryId'), commit, buildKey: artifact.buildKey });
  const judged = judgeReproduction(tally, gate.providerId, { tarSha256: artifact.sha256, manifestRoot: artifact.manifestRoot }, required);
  const others = (n: number) => `${n} other provider${n === 1 ? '' : 's'}`;
  if (judged.state === 'reproduced') {
    pass.set('Reproduced', 'True', 'Reproduced', `${short} reproduced by ${others(judged.agreeing.length)} under build key ${artifact.buildKey}`);
    return NEXT;
  }
  if (judged.state === 'disputed') {
    const theirs = judged.differing.map((d) => `${d.provider} built tar sha256 ${d.tarSha256} (manifest root ${d.manifestRoot})`).join('; ');
    const message = `${short} held: ${theirs}, this provider built ${artifact.sha256} (manifest root ${artifact.manifestRoot}); ` +
      `the running release keeps serving (\`git walrus artifact rebuild\` names the files that differ)`;
    pass.set('Reproduced', 'False', 'Disputed', message);
    return stalling('Disputed', message);
  }
  const message = `${short} waits for ${others(required)} to attest its build (key ${artifact.buildKey}): ${judged.agreeing.length} agreed so far, ${judged.committed} committed`;
  pass.set('Reproduced', 'False', 'AwaitingAttestations', message);
  return waiting('AwaitingAttestations', message, ATTESTATION_POLL_MS);
}
