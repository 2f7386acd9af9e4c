// What Node's snapshot builder runs for dist/node.blob (bin/run-node, under `npm run build`): Node's own bootstrap,
// then the built-in modules every start of our executables loads, so that a process deserializes them with the
// snapshot rather than compiling and running each (node:crypto alone took ~4 ms of a helper's `list`). Only modules
// Node supports in a user snapshot: child_process, readline and worker_threads are not, and the ES module loader's
// internals read Node's options as they load, so a snapshot would keep the build's. Nor node:net, though supported:
// the stream bindings it initializes are per isolate, and a worker thread that then loaded node:net or
// node:child_process aborted on an assertion (the blob-id worker of a `git walrus devnet` server does).
for (const name of ['crypto', 'fs/promises', 'os', 'stream', 'stream/promises', 'string_decoder', 'timers/promises']) require(`node:${name}`);
// node:fs loads its stream classes at their first use, which every helper reaches (a pack is read through them).
void require('node:fs').ReadStream;
