import { readFile, writeFile } from 'node:fs/promises';
import type { CommandModule } from 'yargs';
import { UsageError } from '../core/errors.ts';
import { InvalidSecretNameError, SecretFileError, checkSecret, checkSecretName, namedSecrets, parseAssignment, shellEnvironmentFile } from '../core/lease-secrets.ts';
import { normalizeSuiId } from '../core/walrus-url.ts';
import { NoKeyServersError } from '../remote/errors.ts';
import type { CliArgs } from './app.ts';
import { withMarket } from './market-services.ts';

interface SecretsArgs extends CliArgs {
  action: 'set' | 'unset' | 'list' | 'export';
  to?: string;
  blob?: string;
  'at-version'?: number;
  'names-from'?: string;
  lease: string;
  items: string[];
  'from-file': string[];
  network?: string;
  json: boolean;
}

/** `--from-file NAME=path`: each file read whole, as the value; a file that cannot be read refuses the command. */
async function fromFiles(specs: readonly string[]): Promise<[string, string][]> {
  return Promise.all(specs.map(async (spec, i) => {
    const where = `--from-file ${i + 1}`;
    const at = spec.indexOf('=');
    if (at < 0) throw new InvalidSecretNameError(where);
    const name = spec.slice(0, at);
    const path = spec.slice(at + 1);
    checkSecretName(name, where);
    let value: string;
    try {
      value = await readFile(path, 'utf8');
    } catch (error) {
      throw new SecretFileError(name, path, (error as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : ((error as NodeJS.ErrnoException).code ?? 'unreadable'));
    }
    checkSecret(name, value, where);
    return [name, value] as [string, string];
  }));
}

/**
 * `git walrus secrets set <lease> NAME=value… [--from-file NAME=path]`, `unset <lease> NAME…` and `list <lease>`: the
 * tenant's secrets for the app its lease runs, sealed on this machine to the lease (only its provider, while the
 * lease is open and funded, and the tenant get their keys), stored on Walrus; the app gets them as environment
 * variables. `list` shows names, versions and times, never values.
 */
export const secretsCommand: CommandModule<CliArgs, SecretsArgs> = {
  command: 'secrets <action> <lease> [items..]',
  describe: "set, unset or list the secrets of a lease's app (environment variables sealed to the lease: only its provider and you read them)",
  builder: (y) =>
    y
      .example('$0 secrets set 0x… DATABASE_URL=postgres://… --from-file TLS_KEY=key.pem', 'seal two secrets to the lease: the app is rolled out with them')
      .example('$0 secrets unset 0x… DATABASE_URL', 'remove a secret (a new version without it)')
      .example('$0 secrets list 0x…', 'names, versions and when each was set; never values')
      .example('$0 secrets export 0x… --to /secrets/env', "the provider's tool step: the lease's secrets as a file the app's shell sources")
      .positional('action', { choices: ['set', 'unset', 'list', 'export'] as const, demandOption: true })
      .positional('lease', { type: 'string', demandOption: true, describe: 'the lease id (`git walrus lease open` printed it)' })
      .positional('items', { type: 'string', array: true, default: [], describe: 'set: NAME=value…; unset: NAME…' })
      .option('from-file', { type: 'string', array: true, default: [], describe: 'set: NAME=path, the value read from a file' })
      .option('json', { type: 'boolean', default: false, describe: 'list: machine-readable output' })
      .option('to', { type: 'string', describe: 'export: the file to write (mode 0600), on memory only the pod sees' })
      .option('blob', { type: 'string', describe: 'export: the blob of the version to open (the pod template names it); default: the current one' })
      .option('at-version', { type: 'number', describe: 'export: the version in --blob' })
      .option('names-from', { type: 'string', describe: "export: only the names this file lists, one a line, each of which must be set (the build Job's install secrets); none listed: nothing to do" }) as never,
  handler: async (argv) => {
    const { app } = argv;
    const lease = normalizeSuiId(argv.lease);
    const items = argv.items.map(String);
    // Every refusal the arguments alone decide comes before the network is opened.
    const set = new Map<string, string>();
    if (argv.action === 'set') {
      for (const { name, value } of items.map((item, i) => parseAssignment(item, `NAME=value ${i + 1}`))) set.set(name, value);
      for (const [name, value] of await fromFiles(argv['from-file'])) set.set(name, value);
      if (set.size === 0) throw new UsageError('secrets set needs NAME=value or --from-file NAME=path');
    } else if (argv['from-file'].length > 0) {
      throw new UsageError('--from-file is for secrets set');
    }
    if (argv.action === 'unset' && items.length === 0) throw new UsageError('secrets unset needs the NAMEs to remove');
    if (argv.action === 'unset') items.forEach((name, i) => checkSecretName(name, `name ${i + 1} to unset`));
    if ((argv.action === 'list' || argv.action === 'export') && items.length > 0) throw new UsageError(`secrets ${argv.action} takes only the lease`);
    if (argv.action === 'export' && argv.to === undefined) throw new UsageError('secrets export needs --to <file>');
    if ((argv.blob === undefined) !== (argv['at-version'] === undefined)) throw new UsageError('--blob and --at-version go together');
    if (argv['names-from'] !== undefined && argv.action !== 'export') throw new UsageError('--names-from is for secrets export');
    const only = argv['names-from'] === undefined ? undefined : (await readFile(argv['names-from'], 'utf8')).split('\n').filter((name) => name !== '');
    only?.forEach((name, i) => checkSecretName(name, `name ${i + 1} of ${argv['names-from']}`));
    if (only?.length === 0) {
      app.log.info(`${argv['names-from']} names no secrets of lease ${lease}: nothing to export.`);
      return;
    }
    const { changeSecrets, listSecrets, providerSecrets } = await import('../remote/market/lease-secrets.ts');
    await withMarket(app, argv, async (market, services) => {
      if (!services.keyService) throw new NoKeyServersError({ secretsOf: lease });
      const deps = { market, ledger: services.ledger, blobStore: services.blobStore, keyService: services.keyService };
      if (argv.action === 'export') {
        const at = argv.blob === undefined ? undefined : { blobId: argv.blob, version: argv['at-version']! };
        const opened = await providerSecrets(deps, lease, at);
        const secrets = only === undefined ? opened?.secrets ?? [] : namedSecrets(lease, opened?.secrets ?? [], only);
        await writeFile(argv.to!, shellEnvironmentFile(secrets), { mode: 0o600 });
        app.log.info(`Wrote ${secrets.length} secrets of lease ${lease} (version ${opened?.version ?? 0}).`);
        return;
      }
      if (argv.action === 'list') {
        const { version, secrets } = await listSecrets(deps, lease);
        if (argv.json) {
          app.stdout(`${JSON.stringify({ lease, version, secrets }, null, 2)}\n`);
          return;
        }
        if (secrets.length === 0) app.log.info(version === 0 ? `lease ${lease} has no secrets` : `lease ${lease} has no secrets (version ${version})`);
        for (const s of secrets) app.stdout(`${s.name}\tversion ${s.version}\tset ${new Date(s.setAtMs).toISOString()}\n`);
        return;
      }
      const { version, digest, names } = await changeSecrets(deps, lease, set, argv.action === 'unset' ? items : []);
      const changed = argv.action === 'set' ? [...set.keys()] : items;
      app.log.info(`Lease ${lease}: secrets version ${version} (${argv.action === 'set' ? 'set' : 'removed'}: ${changed.join(', ')}; holds ${names.length}); the app rolls out with it (transaction ${digest}).`);
      app.stdout(`${version}\n`);
    });
  },
};
