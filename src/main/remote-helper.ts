/**
 * Entry of `git-remote-walrus <remote> <url>`, which git runs for walrus:// URLs (gitremote-helpers(7)). It only
 * turns on the module compile cache, so that the helper's modules (helper-process.ts and everything it imports) load
 * from it.
 */
import { enableModuleCompileCache } from './compile-cache.ts';

enableModuleCompileCache(process.env);
await import('./helper-process.ts');
