/** Runs the node's system tools (ip, iptables, sysctl), failing with the command and its stderr. */
import { execFile } from 'node:child_process';
import { WalrusGitError } from '../../../src/core/errors.ts';

/** The node network could not be made or removed; the message names the command and what it printed. */
export class NodeNetworkError extends WalrusGitError {
  constructor(message: string, data: Record<string, unknown> = {}) {
    super('K8S_NODE_NETWORK', message, data);
  }
}

export function sh(command: string, args: readonly string[], input?: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = execFile(command, args, { maxBuffer: 64 * 1024 * 1024 }, (err, stdout, stderr) => {
      if (err) reject(new NodeNetworkError(`${command} ${args.join(' ')} failed: ${(stderr || err.message).trim()}`, { command, args }));
      else resolve(stdout);
    });
    if (input !== undefined) child.stdin?.end(input);
  });
}

/** For removals that may find the thing already gone: returns whether it succeeded. */
export async function shQuiet(command: string, args: readonly string[]): Promise<boolean> {
  try {
    await sh(command, args);
    return true;
  } catch {
    return false;
  }
}

/** `ip -batch -` (optionally inside a namespace): one process for many changes, failing on the first error. */
export const ipBatch = (lines: readonly string[], netns?: string) =>
  sh('ip', [...(netns ? ['-n', netns] : []), '-batch', '-'], lines.join('\n') + '\n');

export async function netnsList(): Promise<string[]> {
  const out = await sh('ip', ['-j', 'netns', 'list']);
  return out.trim() ? (JSON.parse(out) as { name: string }[]).map((n) => n.name) : [];
}
