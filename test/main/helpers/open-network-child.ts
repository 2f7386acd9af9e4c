/**
 * A fresh process for the lazy-signing tests: records every module it loads (a module.registerHooks load hook,
 * registered before anything else is imported), opens the network the environment names through the composition
 * root and uses it, then prints one JSON line: the loaded module URLs and what the calls returned.
 * Usage: node open-network-child.ts read <repositoryId>   (every Ledger read, and the first pack chunk)
 *        node open-network-child.ts write <name>          (createRepository: the first write, then signerAddress)
 *        node open-network-child.ts address <name>        (signerAddress first, as a push does before it uploads,
 *                                                          then createRepository; `loadedForAddress` counts the
 *                                                          modules loaded until signerAddress answered)
 */
import { registerHooks } from 'node:module';

const loaded: string[] = [];
registerHooks({ load: (url, context, next) => { loaded.push(url); return next(url, context); } });

const { openNetwork } = await import('../../../src/main/context.ts');
const { silentLog } = await import('../../../src/core/log.ts');

const [mode, argument] = process.argv.slice(2);
const network = await openNetwork({ env: process.env, log: silentLog, role: 'test' });
let outcome: Record<string, unknown>;
try {
  if (mode === 'read') {
    const id = await network.ledger.resolve({ id: argument! });
    const info = await network.ledger.getRepository(id);
    const refs = Object.fromEntries(await network.ledger.listRefs(id));
    const packs = await network.ledger.listPacks(id, 0);
    const pushes = await network.ledger.listPushes(id);
    const chunk = await network.blobStore.read(packs[0]!.chunks[0]!);
    outcome = { name: info.name, refs, pushes: pushes.length, chunkHex: Buffer.from(chunk).toString('hex') };
  } else if (mode === 'address') {
    const address = await network.ledger.signerAddress();
    const loadedForAddress = loaded.length;
    const { id } = await network.ledger.createRepository(argument!);
    outcome = { address, loadedForAddress, owner: (await network.ledger.getRepository(id)).owner };
  } else {
    try {
      const { id } = await network.ledger.createRepository(argument!);
      outcome = { id, signer: await network.ledger.signerAddress() };
    } catch (error) {
      outcome = { error: { code: (error as { code?: string }).code, message: (error as Error).message } };
    }
  }
} finally {
  await network.close();
}
process.stdout.write(`${JSON.stringify({ loaded, outcome })}\n`);
