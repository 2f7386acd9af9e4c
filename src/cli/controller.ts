import type { CommandModule } from 'yargs';
import { UsageError } from '../core/errors.ts';
import type { CliArgs } from './app.ts';

interface ControllerArgs extends CliArgs {
  kubeconfig?: string;
  namespace?: string;
  'controller-namespace'?: string;
  network?: string;
  'leader-elect': boolean;
  'provider-key-secret'?: string;
  'poll-ms': number;
  provider?: string;
  'provider-app-spec'?: string;
  offer?: string;
  'provider-interval-ms': number;
  'claim-every-ms': number;
  serve: boolean;
  attest: boolean;
  'attest-image'?: string;
  'health-address'?: string;
  'wedged-after-seconds': number;
}

/**
 * `git walrus controller [--kubeconfig F] [--namespace NS]`: the GitOps controller (docs/architecture.md, The GitOps
 * controller), the same one deploy/ runs in the cluster, out of cluster and printing what it does, until SIGINT or
 * SIGTERM. With leader election (the default) it acts only while it holds the Lease; losing it ends the command with
 * exit code 1, as a client-go controller exits, so its supervisor restarts it as a candidate.
 */
export const controllerCommand: CommandModule<CliArgs, ControllerArgs> = {
  command: 'controller',
  describe: 'run the GitOps controller: build and roll out WalrusApps from their on-chain heads',
  builder: (y) =>
    y
      .example('$0 controller --kubeconfig ~/.kube/config --namespace apps', 'deploy the WalrusApps of one namespace')
      .example('$0 controller --provider 0x… --provider-app-spec lease-app.json', 'serve the leases that name this provider')
      .example('$0 controller --provider 0x… --no-serve --attest', "serve nothing; rebuild and attest other providers' leases that require reproduction")
      .option('kubeconfig', { type: 'string', describe: 'kubeconfig file (default: in cluster, or $KUBECONFIG / ~/.kube/config)' })
      .option('namespace', { type: 'string', describe: 'serve WalrusApps of this namespace only (default: every namespace)' })
      .option('controller-namespace', { type: 'string', describe: 'where the leader Lease and the chain cursor live (default: the pod\'s namespace, else --namespace, else walrus-gitops)' })
      .option('leader-elect', { type: 'boolean', default: true, describe: 'act only while holding the Lease (--no-leader-elect for a single replica)' })
      .option('provider-key-secret', { type: 'string', describe: "Secret (key 'key') with the provider's key, given to the pack step only" })
      .option('poll-ms', { type: 'number', default: 1000, describe: 'how often new pushes are read from the chain' })
      .option('provider', { type: 'string', describe: "provider mode: serve the leases of this provider (the controller's key must hold its ProviderCap)" })
      .option('provider-app-spec', { type: 'string', describe: 'provider mode: JSON file with the WalrusApp spec every lease starts from (replicas, port, build, run, health)' })
      .option('offer', { type: 'string', alias: 'provider-offer', describe: 'JSON file with the offer every app gets (replica cap, images, build env, ingress; in provider mode also quota, limits, egress)' })
      .option('provider-interval-ms', { type: 'number', default: 5000, describe: 'provider mode: how often the leases are read from the chain' })
      .option('claim-every-ms', { type: 'number', default: 3_600_000, describe: 'provider mode: how often each lease\'s earnings are claimed' })
      .option('serve', { type: 'boolean', default: true, describe: 'provider mode: serve the leases that name this provider (--no-serve with --attest: an attester only)' })
      .option('attest', { type: 'boolean', default: false, describe: "provider mode: rebuild here the heads of other providers' leases that require reproduction, and attest them on chain" })
      .option('attest-image', { type: 'string', describe: "attester mode: the image the attester's build Jobs run in, as the build key names it (default: --provider-app-spec's build.image, else node:22)" })
      .option('health-address', { type: 'string', describe: 'serve /healthz, /readyz and /metrics (Prometheus) at HOST:PORT (deploy/ uses 0.0.0.0:8080; default: not served)' })
      .option('wedged-after-seconds', { type: 'number', default: 180, describe: 'keys waiting this long with no reconcile pass started or finished make /healthz fail' }) as never,
  handler: async (argv) => {
    const { app } = argv;
    if (!app.startController) throw new UsageError('this build of git walrus has no controller');
    wholeAtLeast('--poll-ms', argv['poll-ms'], 100);
    const provider = argv.provider === undefined ? undefined : {
      providerId: argv.provider,
      appSpecFile: argv['provider-app-spec'],
      intervalMs: wholeAtLeast('--provider-interval-ms', argv['provider-interval-ms'], 100),
      claimEveryMs: wholeAtLeast('--claim-every-ms', argv['claim-every-ms'], 1000),
      serve: argv.serve,
      attest: argv.attest ? { ...(argv['attest-image'] === undefined ? {} : { image: argv['attest-image'] }) } : null,
    };
    if (provider && argv.namespace !== undefined) throw new UsageError(provider.serve ? '--provider serves leases in a namespace per tenant: drop --namespace' : '--no-serve reconciles no WalrusApps: drop --namespace');
    if (!provider && (argv.attest || !argv.serve)) throw new UsageError('--attest and --no-serve need --provider (the provider that attests)');
    if (provider && !provider.serve && !provider.attest) throw new UsageError('--no-serve leaves the provider nothing to do: add --attest');
    if (argv['attest-image'] !== undefined && !argv.attest) throw new UsageError('--attest-image needs --attest');
    if (!provider && argv['provider-app-spec'] !== undefined) throw new UsageError('--provider-app-spec needs --provider');
    const wedgedAfterMs = wholeAtLeast('--wedged-after-seconds', argv['wedged-after-seconds'], 1) * 1000;
    const operations = argv['health-address'] === undefined ? undefined : { ...hostAndPort('--health-address', argv['health-address']), wedgedAfterMs };
    const controller = await app.startController({
      kubeconfig: argv.kubeconfig,
      namespace: argv.namespace,
      controllerNamespace: argv['controller-namespace'],
      network: argv.network,
      leaderElection: argv['leader-elect'],
      providerKeySecret: argv['provider-key-secret'],
      pollMs: argv['poll-ms'],
      offerFile: argv.offer,
      ...(provider ? { provider } : {}),
      ...(operations ? { operations } : {}),
    });
    let stopping = false;
    const stop = (signal: NodeJS.Signals) => {
      stopping = true;
      app.log.info(`controller: ${signal}, stopping`);
      void controller.stop();
    };
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
    try {
      await controller.run();
    } finally {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
      await controller.stop();
    }
    if (!stopping) throw new (await import('./app.ts')).ExitError('controller: leadership lost; exiting so a supervisor restarts the candidate', 1);
  },
};

/** `HOST:PORT`, `[v6]:PORT` or `:PORT` (every address). */
function hostAndPort(flag: string, value: string): { host: string; port: number } {
  const match = /^(?:\[([^\]]+)\]|([^:]*)):(\d+)$/.exec(value);
  const port = match ? Number(match[3]) : NaN;
  if (!match || !(port >= 0 && port <= 65535)) throw new UsageError(`${flag} must be HOST:PORT (e.g. 0.0.0.0:8080 or 127.0.0.1:8080), got ${value}`);
  return { host: match[1] ?? (match[2] || '0.0.0.0'), port };
}

function wholeAtLeast(flag: string, value: number, min: number): number {
  if (!(Number.isInteger(value) && value >= min)) throw new UsageError(`${flag} must be a whole number of ${min} or more, got ${value}`);
  return value;
}
