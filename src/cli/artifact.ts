import { writeFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import type { Argv, CommandModule } from 'yargs';
import { InvalidBlobIdError, isBlobId } from '../core/blob-id-codec.ts';
import { UsageError } from '../core/errors.ts';
import type { Unseal } from '../remote/artifacts.ts';
import { NoKeyServersError } from '../remote/errors.ts';
import { InternalError } from '../core/errors.ts';
import { normalizeSuiId } from '../core/walrus-url.ts';
import type { RebuildDeps, RebuildTarget, RebuildVerdict } from '../gitops/build/rebuild.ts';
import type { SecretEntry } from '../core/lease-secrets.ts';
import type { Log } from '../core/log.ts';
import type { CreateClone } from '../ports/local-repository.ts';
import type { CliArgs, CliServices } from './app.ts';
import { ExitError } from './app.ts';
import { leaseKeyService, withMarket } from './market-services.ts';
import { resolveRemoteArg } from './remote-arg.ts';

interface PackArgs extends CliArgs {
  dir: string;
  terminationMessage?: string;
  repository?: string;
  buildImage?: string;
  buildEnvDigest?: string;
  store: boolean;
  network?: string;
}

interface RebuildArgs extends CliArgs {
  target: string;
  commit?: string;
  image?: string;
  network?: string;
  json: boolean;
}

interface FetchArgs extends CliArgs {
  blobId: string;
  sha256: string;
  dir: string;
  lease?: string;
  network?: string;
}


/**
 * `git walrus artifact pack <dir> [--repository <url>] [--termination-message <path>]`: packs the tree as a
 * deterministic tarball, stores it on Walrus and prints `{"blobId","sha256","size"}` (one JSON line on stdout, and in
 * the file when asked: a build Job's pack step writes it to its termination-message path, where the controller reads
 * it). The build of a private repository (`--repository`, as the chain says it is) is sealed under its policy first.
 * `--no-store` (an attester's build Job) stores nothing, neither the tree nor its build-info record, and needs no
 * network: it prints the digests and the build key alone.
 */
const packCommand: CommandModule<CliArgs, PackArgs> = {
  command: 'pack <dir>',
  describe: 'pack a directory as a deterministic tarball and store it on Walrus; prints {blobId, sha256, size}',
  builder: (y) =>
    y
      .example('$0 artifact pack build --termination-message result.json', 'store build/ on Walrus, the result also in result.json')
      .positional('dir', { type: 'string', demandOption: true, describe: 'the tree to pack (.git is left out)' })
      .option('termination-message', { type: 'string', describe: 'also write the JSON result to this file (e.g. /dev/termination-log)' })
      .option('repository', { type: 'string', describe: 'the repository the tree was built from: a private one\'s artifact is encrypted for its readers and lease providers' })
      .option('build-image', { type: 'string', describe: 'the image the build ran in (by digest to be comparable): part of the build key' })
      .option('build-env-digest', { type: 'string', describe: 'the digest of the provider\'s build environment: part of the build key' })
      .option('store', { type: 'boolean', default: true, describe: 'store the tree on Walrus (--no-store: only report its digests and build key)' }) as never,
  handler: async (argv) => {
    const { app } = argv;
    const [{ publishArtifact }, { readBuildInfo }, { packTree }] = await Promise.all([
      import('../remote/artifacts.ts'), import('../gitops/build/build-report.ts'), import('../fs/tarball.ts'),
    ]);
    const dir = resolve(argv.dir);
    const buildInfoHere = () => readBuildInfo(dir, argv.buildImage ?? 'unknown', argv.buildEnvDigest ?? null);
    const report = async (result: Record<string, unknown>) => {
      const line = `${JSON.stringify(result)}\n`;
      if (argv.terminationMessage !== undefined) await writeFile(argv.terminationMessage, line);
      app.stdout(line);
    };
    if (!argv.store) {
      const packed = await packTree(dir, async () => {});
      const buildInfo = await buildInfoHere();
      await report({ sha256: packed.sha256, manifestRoot: packed.manifestRoot, ...(buildInfo ? { buildKey: buildInfo.buildKey } : {}) });
      return;
    }
    const services = await app.open({ network: argv.network });
    try {
      const sealing = argv.repository === undefined ? undefined : await sealingFor(services, argv.repository, app.workspace);
      const artifact = await publishArtifact({ blobStore: services.blobStore, archive: services.archive, log: app.log, ...(sealing ? { sealing } : {}) }, dir, app.log.verbosity >= 1);
      // The build-info record beside the artifact, when the build left its report. It names the repository, the commit
      // and every resolved dependency, so a private repository's is not stored in the clear: only its build key is told.
      const buildInfo = await buildInfoHere();
      const stored = buildInfo === null || sealing ? null : await services.blobStore.write(new TextEncoder().encode(JSON.stringify(buildInfo)));
      const reproducible = buildInfo === null ? {} : { buildKey: buildInfo.buildKey, ...(stored ? { buildInfo: stored.blobId } : {}) };
      await report({ blobId: artifact.blobId, sha256: artifact.sha256, size: artifact.size, manifestRoot: artifact.manifestRoot, ...reproducible });
    } finally {
      await services.close();
    }
  },
};

/**
 * `git walrus artifact fetch <blobId> --sha256 <hex> <dir> [--lease <id>]`: downloads the artifact, unpacks it into
 * `dir` (new or empty) and refuses it, leaving `dir` empty, unless the tarball's sha256 is the one given. A sealed
 * artifact is opened as a member of its repository, or with `--lease` as the provider of that lease. A blob id is URL-safe
 * base64 and may begin with '-': it is an operand wherever it stands (src/cli/index.ts), as is anything after `--`.
 */
const fetchCommand: CommandModule<CliArgs, FetchArgs> = {
  command: 'fetch <blobId> <dir>',
  describe: 'download an artifact from Walrus, check its sha256 and unpack it into an empty directory',
  builder: (y) =>
    y
      .example('$0 artifact fetch kjqAwNAV… --sha256 eab6e1d3… app', 'unpack the artifact into app/ if its sha256 matches')
      .positional('blobId', { type: 'string', demandOption: true, describe: 'the artifact blob id (what pack printed; it may begin with -)' })
      .positional('dir', { type: 'string', demandOption: true, describe: 'where to unpack (created if missing; must be empty)' })
      .option('sha256', { type: 'string', demandOption: true, describe: 'the sha256 pack printed; any other content is refused' })
      .option('lease', { type: 'string', describe: 'open a private repository\'s artifact as the provider of this lease (the signer holds its ProviderCap)' }) as never,
  handler: async (argv) => {
    const { app } = argv;
    if (!isBlobId(argv.blobId)) throw new InvalidBlobIdError(argv.blobId);
    if (!/^[0-9a-fA-F]{64}$/.test(argv.sha256)) throw new UsageError(`--sha256 must be 64 hex digits, got '${argv.sha256}'`, { sha256: argv.sha256 });
    const { fetchArtifact } = await import('../remote/artifacts.ts');
    const services = await app.open({ network: argv.network });
    try {
      const dir = resolve(argv.dir);
      const unseal = unsealer(services, argv.lease);
      const unpacked = await fetchArtifact({ blobStore: services.blobStore, archive: services.archive, log: app.log, ...(unseal ? { unseal } : {}) }, { blobId: argv.blobId, sha256: argv.sha256 }, dir, app.log.verbosity >= 1);
      app.log.info(`Unpacked artifact ${argv.blobId} (${unpacked.entries} entries, sha256 ${argv.sha256.toLowerCase()}) into ${dir}`);
    } finally {
      await services.close();
    }
  },
};

/**
 * `git walrus artifact rebuild <lease | remote> [--commit <sha>]`: repeats a provider's recorded build on this
 * machine (the lease's last deploy, or the repository's latest deploy record, of `--commit` when given): the tree
 * checked out from the chain, the planned build and test steps run with this machine's node and npm, the tree packed
 * without upload. Says whether the tar sha256 is the recorded one, and the build key it built under (naming `local`
 * unless `--image` names the image this machine builds in); when not, lists the differing files with both digests,
 * and exits 1.
 */
const rebuildCommand: CommandModule<CliArgs, RebuildArgs> = {
  command: 'rebuild <target>',
  describe: "repeat a provider's recorded build here and compare digests; on a mismatch, list the files that differ",
  builder: (y) =>
    y
      .example('$0 artifact rebuild 0x5e1f…', "rebuild the lease's last deployed commit and compare")
      .example('$0 artifact rebuild walrus --commit 39363cd6…', "rebuild that commit's deploy record")
      .positional('target', { type: 'string', demandOption: true, describe: 'a lease id, or a repository (its deploy records)' })
      .option('commit', { type: 'string', describe: 'with a repository: the deployed commit to rebuild (default: the latest record)' })
      .option('image', { type: 'string', describe: "the image this machine builds in, as the build key names it (by digest, run inside it; default: local, this machine's own tools)" })
      .option('json', { type: 'boolean', default: false, describe: 'machine-readable output' }) as never,
  handler: async (argv) => {
    const { app } = argv;
    const { formatVerdict } = await import('../gitops/build/rebuild.ts');
    const verdicts = await withMarket(app, argv, async (market, services) => {
      // An object id names a lease or a repository: a lease when one has that id (a repository's read then answers).
      const lease = /^0x[0-9a-fA-F]{1,64}$/.test(argv.target) && argv.commit === undefined ? await market.getLease(normalizeSuiId(argv.target)).catch(() => null) : null;
      let target;
      if (lease !== null) {
        if (lease.lastDeploy === null) throw new UsageError(`lease ${lease.id} has recorded no deploy yet: there is nothing to rebuild`, { lease: lease.id });
        target = { repository: lease.repository, commit: lease.lastDeploy.commit, artifact: lease.lastDeploy.artifact, sha256: lease.lastDeploy.sha256, lease: lease.id };
      } else {
        const { id } = await resolveRemoteArg(argv.target, services.ledger, app.workspace);
        const records = (await market.listDeployments(id)).filter((record) => argv.commit === undefined || record.commit.startsWith(argv.commit.toLowerCase()));
        const record = records.at(-1);
        if (record === undefined) throw new UsageError(`repository ${id} has no deploy record${argv.commit === undefined ? '' : ` of commit ${argv.commit}`}`, { repository: id });
        target = { repository: id, commit: record.commit, artifact: record.artifact, sha256: record.sha256, lease: record.lease };
      }
      return [await rebuildHere(services, app, target, argv.image)];
    });
    app.stdout(argv.json ? `${JSON.stringify(verdicts)}\n` : verdicts.map(formatVerdict).join(''));
    if (verdicts.some((verdict) => !verdict.reproduced)) throw new ExitError('', 1);
  },
};

/** What building on this machine takes beside the network: git, the tools' PATH and what npm may inherit. */
export interface LocalBuildTools {
  createClone: CreateClone;
  toolPath: string;
  toolEnv?: Record<string, string>;
  log: Log;
  /** The build secrets a manifest names, where this machine may open them (the lease's tenant or provider). */
  buildSecrets?: (names: readonly string[]) => Promise<SecretEntry[]>;
}

/**
 * The checkout, build and pack steps on this machine (gitops/build/rebuild.ts), for `artifact rebuild`, `attest` and
 * the controller's attester mode alike; `image` is what the build key names the build's image by (default `local`).
 */
export async function localBuildSteps(services: Pick<CliServices, 'ledger' | 'blobStore' | 'keyService'>, tools: LocalBuildTools, image?: string): Promise<Omit<RebuildDeps, 'fetch'>> {
  const [{ buildLocally }, { writeSource }, { checkoutCommit }, { packTree }] = await Promise.all([
    import('../gitops/build/local-build.ts'), import('../gitops/build/build-report.ts'), import('../remote/checkout.ts'), import('../fs/tarball.ts'),
  ]);
  return {
    ...(image === undefined ? {} : { image }),
    checkout: async (repository, commit, dir) => {
      const url = `walrus://${repository}`;
      const result = await checkoutCommit({ ledger: services.ledger, blobStore: services.blobStore, log: tools.log, createClone: tools.createClone, ...(services.keyService ? { keyService: services.keyService } : {}) }, repository, url, dir, commit, false);
      await writeSource(dir, { repository, commit: result.commit, commitTime: result.commitTime });
    },
    build: async (dir) => { await buildLocally(dir, { path: tools.toolPath, ...(tools.toolEnv ? { extraEnv: tools.toolEnv } : {}), ...(tools.buildSecrets ? { buildSecrets: tools.buildSecrets } : {}) }); },
    pack: (dir) => packTree(dir, async () => {}),
  };
}

/** One recorded build, repeated here (gitops/build/rebuild.ts with this machine's clone, build and Walrus). */
export async function rebuildHere(services: CliServices, app: CliArgs['app'], target: RebuildTarget, image?: string): Promise<RebuildVerdict> {
  if (!app.createClone || app.toolPath === undefined) throw new InternalError('this build of git walrus cannot rebuild (no git or PATH)');
  const [{ rebuild }, { fetchArtifact }] = await Promise.all([import('../gitops/build/rebuild.ts'), import('../remote/artifacts.ts')]);
  const steps = await localBuildSteps(services, {
    createClone: app.createClone, toolPath: app.toolPath, ...(app.toolEnv ? { toolEnv: app.toolEnv } : {}), log: app.log,
    buildSecrets: (names) => rebuildSecrets(services, target, names),
  }, image);
  const unseal = unsealer(services, undefined);
  return rebuild({
    ...steps,
    fetch: async (artifact, sha256, dir) => { await fetchArtifact({ blobStore: services.blobStore, archive: services.archive, log: app.log, ...(unseal ? { unseal } : {}) }, { blobId: artifact, sha256 }, dir, false); },
  }, target);
}

/**
 * The build secrets a rebuild installs with: the lease's current ones, opened here by its tenant (or its provider), as
 * the build Job's step opens them.
 */
async function rebuildSecrets(services: CliServices, target: RebuildTarget, names: readonly string[]) {
  if (!services.keyService) throw new NoKeyServersError({ secretsOf: target.lease });
  if (!services.market) throw new UsageError(`network ${services.networkName} offers no compute market here`);
  const { buildSecretsOf } = await import('../remote/market/lease-secrets.ts');
  const market = await services.market();
  return buildSecretsOf({ market, ledger: services.ledger, blobStore: services.blobStore, keyService: services.keyService }, target.lease, names);
}

/** The sealing of a private repository's artifact (a fresh data key, sealed locally); none for a public one. */
async function sealingFor(services: CliServices, remote: string, workspace: CliArgs['app']['workspace']) {
  const { id } = await resolveRemoteArg(remote, services.ledger, workspace);
  if (!(await services.ledger.getRepository(id)).private) return undefined;
  if (!services.keyService) throw new NoKeyServersError(id);
  const [{ newPackSealing }, { newPackIdentity }] = await Promise.all([import('../remote/sealed-packs.ts'), import('../core/pack-cipher.ts')]);
  // Its own identity: an artifact is few, and read by one lease's provider.
  return newPackSealing(services.keyService, newPackIdentity(id));
}

/** Opens a sealed artifact's key as a member, or as the provider of `lease`; undefined where there is no Seal. */
export function unsealer(services: CliServices, lease: string | undefined): Unseal | undefined {
  const keyService = services.keyService;
  if (keyService === undefined) return undefined;
  return async (sealedKey) => {
    const { openSealedStream, sealedRepositoryId } = await import('../remote/sealed-packs.ts');
    const repositoryId = await sealedRepositoryId(keyService, sealedKey);
    const service = lease === undefined ? keyService : await leaseKeyService(services, lease, repositoryId);
    return openSealedStream({ ledger: services.ledger, keyService: service }, sealedKey, `the artifact sealed for repository ${repositoryId}`);
  };
}

/** `git walrus artifact pack|fetch`: the build pipeline's artifact steps, usable by hand. */
export const artifactCommand: CommandModule<CliArgs, CliArgs> = {
  command: 'artifact',
  describe: 'pack a tree into a deterministic tarball on Walrus, or fetch and unpack one (the GitOps build steps)',
  builder: (y: Argv<CliArgs>) =>
    y
      .example('$0 artifact pack build', 'store build/ as a deterministic tarball on Walrus')
      .example('$0 artifact fetch <blobId> --sha256 <hex> app', 'download, check and unpack an artifact')
      .example('$0 artifact rebuild <lease>', "repeat the lease's last build here and compare digests")
      .command(packCommand).command(fetchCommand).command(rebuildCommand).demandCommand(1, 'name a subcommand: pack, fetch or rebuild') as never,
  handler: () => {},
};
