/**
 * `git walrus artifact rebuild`: the build a provider recorded, repeated on this machine, and its verdict. The tree is
 * checked out from the chain at the recorded commit, built by the same planned steps (local-build.ts), packed without
 * upload, and its tar sha256 compared with the record's. On a mismatch the provider's artifact is fetched, unpacked
 * (its sha256 checked) and its manifest compared with ours: the verdict names each file that differs and both digests.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { diffManifests } from '../../core/manifest-root.ts';
import type { ManifestDifference } from '../../core/manifest-root.ts';
import type { PackedTree } from '../../ports/tree-archive.ts';
import { readBuildInfo } from './build-report.ts';
import type { BuildInfo } from './reproducible.ts';

/** The image a local rebuild names in its build key: this machine's tools, not a provider's image. */
export const LOCAL_IMAGE = 'local';

export interface RebuildTarget {
  repository: string;
  commit: string;
  /** The recorded artifact: its blob id and tar sha256. */
  artifact: string;
  sha256: string;
  /** The lease the build ran under: whose build secrets it installed with, when its manifest names some. */
  lease: string;
}

export interface RebuildDeps {
  /** Checks `commit` of `repository` out into the empty directory `dir`, leaving its source in the build report. */
  checkout(repository: string, commit: string, dir: string): Promise<void>;
  build(dir: string): Promise<void>;
  /** Packs the tree at `dir` without storing it: the digest and manifest. */
  pack(dir: string): Promise<PackedTree>;
  /** Fetches and unpacks the artifact into the empty directory `dir` (refused unless its sha256 matches). */
  fetch(artifact: string, sha256: string, dir: string): Promise<void>;
  scratch?: string;
  /** The image this machine's build runs in, as its build key names it (default LOCAL_IMAGE). */
  image?: string;
}

export interface RebuildVerdict {
  target: RebuildTarget;
  reproduced: boolean;
  sha256: string;
  manifestRoot: string;
  buildInfo: BuildInfo | null;
  /** The files that differ, ours against the provider's (empty when reproduced). */
  differences: ManifestDifference[];
}

/** A commit built here: its digests and its build-info record (null when the build left no report). */
export interface BuiltHere {
  sha256: string;
  manifestRoot: string;
  buildInfo: BuildInfo | null;
}

/**
 * Checks `commit` of `repository` out into `scratch`, builds and packs it. `then` runs before the scratch directory
 * goes (a rebuild fetches the provider's tree beside ours on a mismatch).
 */
async function withBuild<T>(deps: Omit<RebuildDeps, 'fetch'>, repository: string, commit: string, then: (built: BuiltHere & { tree: PackedTree }, scratch: string) => Promise<T>): Promise<T> {
  const scratch = await mkdtemp(join(deps.scratch ?? tmpdir(), 'walrus-rebuild-'));
  try {
    const tree = join(scratch, 'tree');
    await deps.checkout(repository, commit, tree);
    await deps.build(tree);
    const ours = await deps.pack(tree);
    const buildInfo = await readBuildInfo(tree, deps.image ?? LOCAL_IMAGE, null);
    return await then({ sha256: ours.sha256, manifestRoot: ours.manifestRoot, buildInfo, tree: ours }, scratch);
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
}

export async function rebuild(deps: RebuildDeps, target: RebuildTarget): Promise<RebuildVerdict> {
  return withBuild(deps, target.repository, target.commit, async (ours, scratch) => {
    const verdict = { target, sha256: ours.sha256, manifestRoot: ours.manifestRoot, buildInfo: ours.buildInfo };
    if (ours.sha256 === target.sha256) return { ...verdict, reproduced: true, differences: [] };
    const theirsDir = join(scratch, 'theirs');
    await deps.fetch(target.artifact, target.sha256, theirsDir);
    const theirs = await deps.pack(theirsDir);
    return { ...verdict, reproduced: false, differences: diffManifests(ours.tree.manifest, theirs.manifest) };
  });
}

/**
 * The verdict in words: reproduced, or the files that differ with both digests, and under which build key. A rebuild
 * whose key names `local` (this machine's own node and npm, not the provider's build image) that gets other bytes
 * says so: a mismatch between two keys is no evidence against the provider, unlike one under the same key.
 */
export function formatVerdict(verdict: RebuildVerdict): string {
  const { target, buildInfo } = verdict;
  const head = `${target.commit.slice(0, 12)} artifact ${target.artifact}`;
  const image = buildInfo?.inputs.image;
  const key = buildInfo === null ? 'no build key (the build left no report)' : `build key ${buildInfo.buildKey} (image ${image})`;
  if (verdict.reproduced) return `${head}: reproduced (tar sha256 ${verdict.sha256}, manifest root ${verdict.manifestRoot}), built here under ${key}\n`;
  const lines = image === LOCAL_IMAGE
    ? [
      `${head}: different bytes under a different build key, not a dispute: the provider recorded tar sha256 ${target.sha256}, this machine built ${verdict.sha256} ` +
        `under ${key}, with its own tools (node ${buildInfo!.inputs.tools.node}, npm ${buildInfo!.inputs.tools.npm}, ${buildInfo!.inputs.tools.platform}-${buildInfo!.inputs.tools.arch}) rather than the provider's build image`,
      '  to compare under one key, rebuild inside the provider\'s build image, naming it with --image <image>@sha256:…',
    ]
    : [`${head}: NOT reproduced: the provider recorded tar sha256 ${target.sha256}, this machine built ${verdict.sha256} under ${key}`];
  if (verdict.differences.length === 0) lines.push('  the files agree (path, mode, content): the archives differ in directories only');
  for (const difference of verdict.differences) {
    const side = (entry: ManifestDifference['ours']) => entry === null ? 'absent' : `${entry.sha256} (${entry.mode.toString(8)})`;
    lines.push(`  ${difference.path}`, `    here:     ${side(difference.ours)}`, `    provider: ${side(difference.theirs)}`);
  }
  return `${lines.join('\n')}\n`;
}
