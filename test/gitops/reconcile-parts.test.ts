import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { V1Deployment, V1Job, V1Pod } from '@kubernetes/client-node';
import type { PushEvent } from '../../src/ports/ledger.ts';
import { assessRollout } from '../../src/gitops/reconcile/assess-rollout.ts';
import { decidePolicy } from '../../src/gitops/reconcile/policy.ts';
import { pushThatSet } from '../../src/gitops/watch/head-reader.ts';
import { recordHistory, setCondition, transitions } from '../../src/gitops/reconcile/conditions.ts';
import { jobOutcome, parseArtifact } from '../../src/gitops/reconcile/build-result.ts';
import { lastGoodRelease } from '../../src/gitops/reconcile/release.ts';
import { BuildResultError } from '../../src/gitops/reconcile/errors.ts';
import { buildConfigHash, buildEnvDigest, builtWith, plannedConfig } from '../../src/gitops/api/build-config.ts';
import { DEFAULTS, HISTORY_LIMIT, resolveSpec } from '../../src/gitops/api/types.ts';

const oid = (n: number) => n.toString(16).padStart(40, '0');
const addr = (n: number) => `0x${n.toString(16).padStart(64, '0')}`;

const deployment = (generation: number, status: V1Deployment['status'], replicas = 2): V1Deployment => ({ metadata: { generation }, spec: { replicas, selector: {}, template: {} }, status });

const rollout = suite('rollout assessment from Deployment status');
rollout('not yet observed → Progressing', () => {
  assert.is(assessRollout(deployment(3, { observedGeneration: 2, replicas: 2, updatedReplicas: 2, availableReplicas: 2 })).phase, 'Progressing');
});
rollout('updated, old replicas left, or not yet available → Progressing; all updated and available → Complete', () => {
  assert.match(assessRollout(deployment(2, { observedGeneration: 2, replicas: 3, updatedReplicas: 1, availableReplicas: 2 })).message, '1 of 2 replicas updated');
  assert.match(assessRollout(deployment(2, { observedGeneration: 2, replicas: 3, updatedReplicas: 2, availableReplicas: 3 })).message, '1 old replicas');
  assert.match(assessRollout(deployment(2, { observedGeneration: 2, replicas: 2, updatedReplicas: 2, availableReplicas: 1 })).message, '1 of 2 updated replicas available');
  assert.is(assessRollout(deployment(2, { observedGeneration: 2, replicas: 2, updatedReplicas: 2, availableReplicas: 2 })).phase, 'Complete');
});
rollout('ProgressDeadlineExceeded → Failed, with the controller\'s message', () => {
  const state = assessRollout(deployment(2, {
    observedGeneration: 2, replicas: 3, updatedReplicas: 1, availableReplicas: 2,
    conditions: [{ type: 'Progressing', status: 'False', reason: 'ProgressDeadlineExceeded', message: 'ReplicaSet "x" has timed out progressing.' }],
  }));
  assert.equal(state, { phase: 'Failed', message: 'ReplicaSet "x" has timed out progressing.' });
});
rollout.run();

const push = (seq: number, sender: string, updates: [string, string | null][]): PushEvent => ({
  repository: addr(99), seq, kind: 0, sender, timestampMs: seq, updates: updates.map(([name, value]) => ({ name, old: null, new: value, force: false })),
  pack: null, packIndex: null, liveFrom: 0, logHead: '', txDigest: `tx${seq}`,
});

const policy = suite('policy: who pushed the head');
policy('the latest push of the ref is the one that set it; a later different value means none did', () => {
  const log = [push(1, addr(1), [['refs/heads/main', oid(1)]]), push(2, addr(2), [['refs/heads/main', oid(2)], ['refs/tags/v1', oid(1)]]), push(3, addr(3), [['refs/heads/dev', oid(3)]])];
  assert.is(pushThatSet(log, 'refs/heads/main', oid(2))?.seq, 2);
  assert.is(pushThatSet(log, 'refs/tags/v1', oid(1))?.seq, 2);
  assert.is(pushThatSet(log, 'refs/heads/main', oid(1)), null);
  assert.is(pushThatSet(log, 'refs/heads/none', oid(1)), null);
});
policy('no list allows anyone; a listed sender (any address form) is allowed; anyone else is refused, named', () => {
  const by = push(4, addr(0xab), [['refs/heads/main', oid(4)]]);
  assert.equal(decidePolicy([], by, 'refs/heads/main', oid(4)), { allowed: true });
  assert.equal(decidePolicy(['0xAB'], by, 'refs/heads/main', oid(4)), { allowed: true });
  const refused = decidePolicy([addr(1)], by, 'refs/heads/main', oid(4));
  assert.is(refused.allowed, false);
  assert.match((refused as { message: string }).message, addr(0xab));
  assert.is(decidePolicy([addr(1)], null, 'refs/heads/main', oid(4)).allowed, false, 'no push in the log: refused');
});
policy.run();

const status = suite('conditions, history and build results');
status('a condition keeps its transition time while its status holds, and transitions name what changed', () => {
  const t1 = new Date('2026-01-01T00:00:00Z');
  const t2 = new Date('2026-01-01T00:01:00Z');
  const first = setCondition([], { type: 'Ready', status: 'False', reason: 'Building', message: 'a' }, t1, 1);
  const same = setCondition(first, { type: 'Ready', status: 'False', reason: 'BuildFailed', message: 'b' }, t2, 1);
  assert.is(same[0].lastTransitionTime, t1.toISOString());
  const flipped = setCondition(same, { type: 'Ready', status: 'True', reason: 'Succeeded', message: 'c' }, t2, 2);
  assert.is(flipped[0].lastTransitionTime, t2.toISOString());
  assert.is(flipped[0].observedGeneration, 2);
  assert.equal(transitions(first, same).map((c) => c.reason), ['BuildFailed']);
  assert.equal(transitions(same, same), []);
});
status('history is newest first, capped, without repeating an outcome; the last good release is found in it', () => {
  let history = recordHistory(undefined, { commit: oid(1), result: 'Released', artifact: { blobId: 'b1', sha256: 'a'.repeat(64), size: 1 }, time: 't', message: '' });
  history = recordHistory(history, { commit: oid(1), result: 'Released', time: 't2', message: '' });
  assert.is(history.length, 1);
  for (let n = 2; n <= 12; n++) history = recordHistory(history, { commit: oid(n), result: 'RolledBack', time: 't', message: '' });
  assert.is(history.length, HISTORY_LIMIT);
  assert.is(history[0].commit, oid(12));
  const good = recordHistory([{ commit: oid(5), result: 'RolledBack', time: 't', message: '' }], { commit: oid(4), result: 'Released', artifact: { blobId: 'b4', sha256: 'a'.repeat(64), size: 4 }, time: 't', message: '' });
  assert.equal(lastGoodRelease({ lastAppliedRevision: oid(4), history: [good[1], good[0]] }), { commit: oid(4), artifact: { blobId: 'b4', sha256: 'a'.repeat(64), size: 4 } });
  assert.is(lastGoodRelease({ history: good }), null, 'nothing applied yet');
});
status('a build Job is running, succeeded or failed by its conditions', () => {
  const job = (conditions: { type: string; status: string }[], succeeded?: number): V1Job => ({ status: { conditions, succeeded } });
  assert.is(jobOutcome(job([])), 'running');
  assert.is(jobOutcome(job([{ type: 'Complete', status: 'True' }])), 'succeeded');
  assert.is(jobOutcome(job([], 1)), 'succeeded');
  assert.is(jobOutcome(job([{ type: 'Failed', status: 'True' }])), 'failed');
});
status('the artifact is read from the pack container\'s termination message, and refused when malformed', () => {
  const pod = (message: string): V1Pod => ({ status: { phase: 'Succeeded', containerStatuses: [{ name: 'pack', image: '', imageID: '', ready: false, restartCount: 0, state: { terminated: { exitCode: 0, message } } }] } });
  const good = { blobId: 'abc', sha256: 'f'.repeat(64), size: 42 };
  assert.equal(parseArtifact('j', [pod(JSON.stringify(good))]), good);
  // A reproducible build's report is kept; a malformed digest in it is left out, not trusted.
  const reproducible = { ...good, manifestRoot: 'a'.repeat(64), buildKey: 'b'.repeat(64), buildInfo: 'blob-of-build-info' };
  assert.equal(parseArtifact('j', [pod(JSON.stringify(reproducible))]), reproducible);
  assert.equal(parseArtifact('j', [pod(JSON.stringify({ ...good, manifestRoot: 'nope', buildKey: 7 }))]), good);
  assert.throws(() => parseArtifact('j', [pod('{"blobId":"abc"}')]), (error: unknown) => error instanceof BuildResultError && /lacks/.test(error.message));
  assert.throws(() => parseArtifact('j', [pod('{not json')]), (error: unknown) => error instanceof BuildResultError && /not JSON/.test(error.message));
  assert.throws(() => parseArtifact('j', []), /pod is gone/);
});
status('the build config hash changes with the build settings only, not their key order', () => {
  const base = resolveSpec({ repository: 'walrus://0x1' });
  assert.is(base.build.command, DEFAULTS.build.command);
  const same = resolveSpec({ repository: 'walrus://0x2', replicas: 3, build: { image: 'node:22', command: DEFAULTS.build.command } });
  assert.is(buildConfigHash(base), buildConfigHash(same));
  assert.is.not(buildConfigHash(base), buildConfigHash(resolveSpec({ repository: 'walrus://0x1', build: { command: 'npm ci' } })));
  assert.match(buildConfigHash(base), /^[0-9a-f]{10}$/);
});
status('the offer\'s buildEnv enters the hash as a digest: the same in any order, another for another value, none when empty', () => {
  const spec = resolveSpec({ repository: 'walrus://0x1' });
  const mirror = { name: 'npm_config_registry', value: 'http://npm-mirror.infra:4873' };
  const token = { name: 'NPM_TOKEN', value: 'npm_s3cr3t-token-value' };
  const rows: { name: string; a: { name: string; value: string }[]; b: { name: string; value: string }[]; same: boolean }[] = [
    { name: 'none and empty', a: [], b: [], same: true },
    { name: 'order of the variables', a: [mirror, token], b: [token, mirror], same: true },
    { name: 'a mirror added', a: [], b: [mirror], same: false },
    { name: 'the mirror moved', a: [mirror], b: [{ ...mirror, value: 'http://npm-mirror-2.infra:4873' }], same: false },
    { name: 'the token rotated', a: [mirror, token], b: [mirror, { ...token, value: 'npm_0ther-token-value' }], same: false },
    { name: 'a value holding a newline is not two variables', a: [{ name: 'CA', value: 'x\nB=y' }], b: [{ name: 'CA', value: 'x' }, { name: 'B', value: 'y' }], same: false },
  ];
  for (const row of rows) assert.is(buildConfigHash(spec, row.a) === buildConfigHash(spec, row.b), row.same, row.name);
  assert.is(buildConfigHash(spec, []), buildConfigHash(spec), 'an empty buildEnv gives the hash of the spec alone (as controllers before it counted)');
  assert.match(buildEnvDigest([token]), /^[0-9a-f]{64}$/);
  assert.not.match(buildEnvDigest([token]), token.value);
});
status('builtWith: the full hash matches; an artifact of an earlier controller matches on its spec settings alone', () => {
  const spec = resolveSpec({ repository: 'walrus://0x1' });
  const env = [{ name: 'npm_config_registry', value: 'http://npm-mirror.infra:4873' }];
  const planned = plannedConfig(spec, env);
  const specOnly = buildConfigHash(spec);
  const rows: { name: string; recorded: Parameters<typeof builtWith>[0]; fits: boolean }[] = [
    { name: 'built with this buildEnv', recorded: { configHash: planned.configHash, buildEnvCounted: true }, fits: true },
    { name: 'built by an earlier controller (buildEnv not counted), same spec settings', recorded: { configHash: specOnly }, fits: true },
    { name: 'built with no buildEnv by this controller: the offer added one since', recorded: { configHash: specOnly, buildEnvCounted: true }, fits: false },
    { name: 'built with another buildEnv', recorded: { configHash: buildConfigHash(spec, [{ ...env[0]!, value: 'http://old-mirror:4873' }]), buildEnvCounted: true }, fits: false },
    { name: 'other spec settings, by an earlier controller', recorded: { configHash: buildConfigHash(resolveSpec({ repository: 'walrus://0x1', build: { command: 'npm ci' } })) }, fits: false },
    { name: 'no hash recorded', recorded: {}, fits: false },
    { name: 'nothing recorded', recorded: undefined, fits: false },
  ];
  for (const row of rows) assert.is(builtWith(row.recorded, planned), row.fits, row.name);
  assert.is(builtWith({ configHash: specOnly, buildEnvCounted: true }, plannedConfig(spec, [])), true, 'no buildEnv: the spec hash is the full hash');
});
status.run();
