import { writeFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import type { Argv, CommandModule } from 'yargs';
import { InvalidBlobIdError, isBlobId } from '../core/blob-id-codec.ts';
import { UsageError } from '../core/errors.ts';
import type { Unseal } from '../remote/artifacts.ts';
import { NoKeyServersError } from '../remote/errors.ts';
import type { CliArgs, CliServices } from './app.ts';
import { leaseKeyService } from './market-services.ts';
import { resolveRemoteArg } from './remote-arg.ts';

interface PackArgs extends CliArgs {
  dir: string;
  terminationMessage?: string;
  repository?: string;
  network?: string;
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
 */
const packCommand: CommandModule<CliArgs, PackArgs> = {
  command: 'pack <dir>',
  describe: 'pack a directory as a deterministic tarball and store it on Walrus; prints {blobId, sha256, size}',
  builder: (y) =>
    y
      .example('$0 artifact pack build --termination-message result.json', 'store build/ on Walrus, the result also in result.json')
      .positional('dir', { type: 'string', demandOption: true, describe: 'the tree to pack (.git is left out)' })
      .option('termination-message', { type: 'string', describe: 'also write the JSON result to this file (e.g. /dev/termination-log)' })
      .option('repository', { type: 'string', describe: 'the repository the tree was built from: a private one\'s artifact is encrypted for its readers and lease providers' }) as never,
  handler: async (argv) => {
    const { app } = argv;
    const [{ publishArtifact }, { tarballArchive }] = await Promise.all([import('../remote/artifacts.ts'), import('../fs/tarball.ts')]);
    const services = await app.open({ network: argv.network });
    try {
      const sealing = argv.repository === undefined ? undefined : await sealingFor(services, argv.repository, app.workspace);
      const artifact = await publishArtifact({ blobStore: services.blobStore, archive: tarballArchive, log: app.log, ...(sealing ? { sealing } : {}) }, resolve(argv.dir), app.log.verbosity >= 1);
      const result = `${JSON.stringify({ blobId: artifact.blobId, sha256: artifact.sha256, size: artifact.size })}\n`;
      if (argv.terminationMessage !== undefined) await writeFile(argv.terminationMessage, result);
      app.stdout(result);
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
    const [{ fetchArtifact }, { tarballArchive }] = await Promise.all([import('../remote/artifacts.ts'), import('../fs/tarball.ts')]);
    const services = await app.open({ network: argv.network });
    try {
      const dir = resolve(argv.dir);
      const unseal = unsealer(services, argv.lease);
      const unpacked = await fetchArtifact({ blobStore: services.blobStore, archive: tarballArchive, log: app.log, ...(unseal ? { unseal } : {}) }, { blobId: argv.blobId, sha256: argv.sha256 }, dir, app.log.verbosity >= 1);
      app.log.info(`Unpacked artifact ${argv.blobId} (${unpacked.entries} entries, sha256 ${argv.sha256.toLowerCase()}) into ${dir}`);
    } finally {
      await services.close();
    }
  },
};

/** The sealing of a private repository's artifact (a fresh data key, sealed locally); none for a public one. */
async function sealingFor(services: CliServices, remote: string, workspace: CliArgs['app']['workspace']) {
  const { id } = await resolveRemoteArg(remote, services.ledger, workspace);
  if (!(await services.ledger.getRepository(id)).private) return undefined;
  if (!services.keyService) throw new NoKeyServersError(id);
  const { newPackSealing } = await import('../remote/sealed-packs.ts');
  return newPackSealing(services.keyService, id);
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
      .command(packCommand).command(fetchCommand).demandCommand(1, 'name a subcommand: pack or fetch') as never,
  handler: () => {},
};
