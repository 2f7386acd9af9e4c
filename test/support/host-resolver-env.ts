import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const PRELOAD = join(dirname(fileURLToPath(import.meta.url)), 'host-resolver.ts');

/** The environment that makes a process resolve each name of `hosts` to its address (host-resolver.ts). */
export function resolveHostsEnv(hosts: Record<string, string>): NodeJS.ProcessEnv {
  return { NODE_OPTIONS: `--import=${PRELOAD}`, WALRUS_TEST_HOSTS: JSON.stringify(hosts) };
}
