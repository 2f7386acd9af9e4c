/** Entry of `git walrus <command>`. */
import { startProcess } from './start.ts';

await startProcess(() => import('./cli-process.ts'));
