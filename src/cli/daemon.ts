import type { CommandModule } from 'yargs';
import { InternalError } from '../core/errors.ts';
import { formatBytes } from '../remote/progress.ts';
import type { CliArgs } from './app.ts';

interface DaemonArgs extends CliArgs {
  action: 'status' | 'stop';
  json: boolean;
}

/**
 * `git walrus daemon status|stop`: the warm encoder that keeps Walrus's encoder built across helpers (README, The
 * warm encoder). Neither opens the network; neither starts a daemon.
 */
export const daemonCommand: CommandModule<CliArgs, DaemonArgs> = {
  command: 'daemon <action>',
  describe: 'show or stop the warm encoder (walrus.warmEncoder): the daemon that computes blob ids for your helpers',
  builder: (y) =>
    y
      .example('$0 daemon status', 'whether it runs, since when, the ids it computed and its memory')
      .example('$0 daemon stop', 'end it now (the next push with walrus.warmEncoder starts it again)')
      .positional('action', { choices: ['status', 'stop'] as const, demandOption: true })
      .option('json', { type: 'boolean', default: false, describe: 'status: machine-readable output' }) as never,
  handler: async (argv) => {
    const { app } = argv;
    if (!app.warmEncoder) throw new InternalError('this build of git walrus has no warm encoder');
    if (argv.action === 'stop') {
      app.stdout((await app.warmEncoder.stop()) ? 'warm encoder stopped\n' : 'no warm encoder runs\n');
      return;
    }
    const status = await app.warmEncoder.status();
    if (argv.json) {
      app.stdout(`${JSON.stringify(status)}\n`);
      return;
    }
    if (status === null) {
      app.stdout(`no warm encoder runs (socket ${app.warmEncoder.socket}); with walrus.warmEncoder set, the next push starts it\n`);
      return;
    }
    const now = Date.now();
    const minutes = (ms: number) => `${Math.max(0, Math.round(ms / 60_000))} min`;
    app.stdout([
      `warm encoder: pid ${status.pid}, socket ${status.socket}`,
      `running for ${minutes(now - status.startedMs)}, last used ${minutes(now - status.lastUsedMs)} ago; exits after ${minutes(status.idleOutMs)} unused`,
      `ids computed: ${status.ids} (${(status.encodeMs / 1000).toFixed(1)} s of encoding); encoders built for ${status.shards.length ? status.shards.join(', ') : 'no'} shard count(s)`,
      `memory: ${formatBytes(status.rssBytes)} resident`,
    ].join('\n') + '\n');
  },
};
