/**
 * The two fronts of the devnet for end-to-end tests through real git: the embedded network (each world has its own,
 * in its GIT_WALRUS_HOME, served in process by every git-remote-walrus and `git walrus` process) and one
 * `git walrus devnet` server shared by a suite (every world points git at it with GIT_WALRUS_NETWORK=devnet). A test is
 * written once against a NetworkFront and runs on each.
 */
import { join } from 'node:path';
import { createWorld, startDevnet } from '../../scripts/harness/world.ts';
import type { World } from '../../scripts/harness/world.ts';
import { tempDir } from '../../scripts/harness/git-env.ts';
import { machineClockEnv } from './machine-clock-env.ts';

export interface NetworkFront {
  name: string;
  /** A fresh world (HOME, GIT_WALRUS_HOME, key) whose git commands use this front; `extra` joins its environment. */
  world(extra?: NodeJS.ProcessEnv): World;
  /**
   * The state directory of the network `w` talks to: where its operator takes key servers down (`seal/down`, read at
   * every request by every process serving them) and where its Walrus keeps blob bytes (`walrus/blobs/<blob id>`).
   */
  stateDir(w: World): string;
  /**
   * The machine clock of the front's processes (machine-clock.ts): a `git walrus devnet` server always runs on it, a
   * world's git processes when given `machineClockEnv(clockFile)`. Real time until a test moves it.
   */
  clockFile: string;
  close(): Promise<void>;
}

export interface NetworkFrontFactory {
  name: string;
  open(): Promise<NetworkFront>;
}

export const embeddedFront: NetworkFrontFactory = {
  name: 'embedded network',
  async open() {
    const clock = tempDir('walrus-clock-');
    return {
      name: 'embedded network',
      world: (extra) => createWorld('walrus-e2e-', extra),
      stateDir: (w) => w.path('walrus-home', 'local'),
      clockFile: join(clock.path, 'clock'),
      close: async () => clock.remove(),
    };
  },
};

export const devnetServerFront: NetworkFrontFactory = {
  name: 'git walrus devnet server',
  async open() {
    const clock = tempDir('walrus-clock-');
    const clockFile = join(clock.path, 'clock');
    const host = createWorld('walrus-devnet-', machineClockEnv(clockFile));
    try {
      const server = await startDevnet(host);
      const network = { GIT_WALRUS_NETWORK: 'devnet', GIT_WALRUS_DEVNET_URL: server.url };
      return {
        name: 'git walrus devnet server',
        world: (extra) => createWorld('walrus-e2e-', { ...network, ...extra }),
        stateDir: () => join(host.root, 'devnet-state'),
        clockFile,
        close: async () => {
          await server.stop();
          host.remove();
          clock.remove();
        },
      };
    } catch (error) {
      host.remove();
      clock.remove();
      throw error;
    }
  },
};

export const NETWORK_FRONTS: readonly NetworkFrontFactory[] = [embeddedFront, devnetServerFront];
