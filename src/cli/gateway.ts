import type { CommandModule } from 'yargs';
import { UsageError } from '../core/errors.ts';
import type { CliArgs } from './app.ts';
import { untilInterrupted } from './until-interrupted.ts';

interface GatewayArgs extends CliArgs {
  provider: string;
  host: string;
  port: number;
  kubeconfig?: string;
  network?: string;
}

/**
 * `git walrus gateway --provider <id>`: the provider's gateway, the HTTP API its leases' tenants reach at the endpoint
 * it registered (docs/architecture.md, The provider's gateway), until SIGINT or SIGTERM. Run it in the cluster
 * (deploy/provider/gateway.yaml) or from a checkout with a kubeconfig.
 */
export const gatewayCommand: CommandModule<CliArgs, GatewayArgs> = {
  command: 'gateway',
  describe: "serve a provider's gateway: its leases' app status, build output, events and logs, to each lease's tenant",
  builder: (y) =>
    y
      .option('provider', { type: 'string', demandOption: true, describe: 'the provider object id whose leases it serves' })
      .option('host', { type: 'string', default: '127.0.0.1', describe: 'address to listen on (0.0.0.0 in a pod)' })
      .option('port', { type: 'number', default: 8080, describe: 'port to listen on (0: a free one)' })
      .option('kubeconfig', { type: 'string', describe: 'the cluster to read (default: in a pod its service account, else $KUBECONFIG or ~/.kube/config)' })
      .example('$0 gateway --provider 0x… --host 0.0.0.0', 'serve the tenants of provider 0x… on port 8080') as never,
  handler: async (argv) => {
    const { app } = argv;
    if (!app.startGateway) throw new UsageError('this build has no gateway');
    if (!(Number.isInteger(argv.port) && argv.port >= 0 && argv.port <= 65535)) throw new UsageError(`--port must be a port number (0 for a free one), got ${argv.port}`);
    const run = await app.startGateway({ providerId: argv.provider, host: argv.host, port: argv.port, ...(argv.kubeconfig ? { kubeconfig: argv.kubeconfig } : {}), ...(argv.network ? { network: argv.network } : {}) });
    try {
      app.stdout(`${run.url}\n`);
      await untilInterrupted();
    } finally {
      await run.close();
    }
  },
};
