/** Entry of `git-remote-walrus <remote> <url>`, which git runs for walrus:// URLs (gitremote-helpers(7)). */
import { startProcess } from './start.ts';

await startProcess(() => import('./helper-process.ts'));
