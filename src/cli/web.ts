import type { CommandModule } from 'yargs';
import { UsageError } from '../core/errors.ts';
import { isLoopbackHost } from '../core/loopback.ts';
import type { CliArgs } from './app.ts';
import { resolveRemoteArg } from './remote-arg.ts';
import { untilInterrupted } from './until-interrupted.ts';

interface WebArgs extends CliArgs {
  remote?: string;
  port: number;
  host: string;
  allowPrivate: boolean;
  network?: string;
}

/**
 * `git walrus web [<remote|url>] [--port N] [--host IP]`: the web front end, on 127.0.0.1 and a free port unless told
 * otherwise, until SIGINT or SIGTERM. It prints the URL (of the repository's page when one is named). Off loopback
 * it shows no private repository's contents unless --allow-private says so.
 */
export const webCommand: CommandModule<CliArgs, WebArgs> = {
  command: 'web [remote]',
  describe: 'serve a local web front end: repositories, code, commits, the verified push log, access, deployments, the market',
  builder: (y) =>
    y
      .positional('remote', { type: 'string', describe: 'a git remote name or a walrus:// URL to open at' })
      .option('port', { type: 'number', default: 0, describe: 'port to listen on (default: a free one)' })
      .option('host', { type: 'string', default: '127.0.0.1', describe: 'address to listen on; anything but loopback serves read-only pages to others' })
      .option('allow-private', { type: 'boolean', default: false, describe: 'with --host: also show private repositories this key may read' })
      .example('$0 web', 'serve every repository of the network on 127.0.0.1, a free port')
      .example('$0 web walrus --port 8080', 'open at the repository of the remote `walrus`, on port 8080') as never,
  handler: async (argv) => {
    const { app } = argv;
    if (!app.startWeb) throw new UsageError('this build has no web front end');
    if (!(Number.isInteger(argv.port) && argv.port >= 0 && argv.port <= 65535)) throw new UsageError(`--port must be a port number (0 for a free one), got ${argv.port}`);
    const loopback = isLoopbackHost(argv.host);
    const run = await app.startWeb({ network: argv.network, host: argv.host === 'localhost' ? '127.0.0.1' : argv.host, port: argv.port, allowPrivate: loopback || argv.allowPrivate });
    try {
      let url = run.url;
      if (argv.remote !== undefined) url = `${run.url}repos/${(await resolveRemoteArg(argv.remote, run.ledger, app.workspace)).id}`;
      if (!loopback) app.log.warn(`serving on ${argv.host}: anyone who reaches it can read the pages${argv.allowPrivate ? ', including private repositories this key may read' : ' (private repositories show their metadata only)'}`);
      app.stdout(`${url}\n`);
      await untilInterrupted();
    } finally {
      await run.close();
    }
  },
};
