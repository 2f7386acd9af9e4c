/**
 * One run of a container on disk: its own directory in the pod's (its root's overlay dirs, its termination-message
 * file) and the list of what is mounted into its root, in mount order: the image's files first, as a runtime's
 * image is the root the volumes are mounted over.
 */
import { chmod, mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { V1Container } from '@kubernetes/client-node';
import type { Mount } from './runtime.ts';
import { containerMounts } from './volumes.ts';

export interface RunFiles {
  dir: string;
  /** The host file behind the container's terminationMessagePath. */
  terminationLog: string;
  mounts: Mount[];
}

/** Throws VolumeError (volumes.ts) when a volume mount cannot be resolved (a bad subPath). */
export async function prepareRunFiles(podDir: string, spec: V1Container, restartCount: number, imageFiles: Readonly<Record<string, string>>,
  volumes: ReadonlyMap<string, string>): Promise<RunFiles> {
  const dir = join(podDir, 'containers', spec.name, String(restartCount));
  await mkdir(dir, { recursive: true });
  const terminationLog = join(dir, 'termination-log');
  await writeFile(terminationLog, '');
  await chmod(terminationLog, 0o666);
  const mounts = [
    ...Object.entries(imageFiles).map(([target, source]) => ({ source, target, readOnly: true })),
    { source: join(podDir, 'hosts'), target: '/etc/hosts', readOnly: false },
    ...(await containerMounts(spec, volumes)),
    { source: terminationLog, target: spec.terminationMessagePath ?? '/dev/termination-log', readOnly: false },
  ];
  return { dir, terminationLog, mounts };
}
