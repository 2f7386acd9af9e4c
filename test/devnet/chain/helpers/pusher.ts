/**
 * A separate git-like process for the multi-process tests: opens the embedded network in `dir` and pushes
 * `count` new branches `refs/heads/<prefix>-<i>` to a repository (count 0 = forever, until killed).
 * Usage: node pusher.ts <dir> <repositoryId> <suiprivkey> <prefix> <count>
 */
import { Ed25519Keypair } from '@mysten/sui/keypairs/ed25519';
import { openLocalNetwork } from '../../../../src/devnet/local-network.ts';
import { SuiLedger } from '../../../../src/sui/ledger.ts';

const [dir, repositoryId, secret, prefix, countText] = process.argv.slice(2);
const network = await openLocalNetwork(dir);
const ledger = new SuiLedger({ client: network.client, signer: Ed25519Keypair.fromSecretKey(secret), packageId: network.packageId, registryId: network.registryId });
const count = Number(countText);
for (let i = 0; count === 0 || i < count; i++) {
  const oid = Buffer.from(`${prefix}-${i}`.padEnd(20, '.')).subarray(0, 20).toString('hex');
  await ledger.push(repositoryId, [{ name: `refs/heads/${prefix}-${i}`, old: null, new: oid, force: false }], null);
  if (count === 0 && i === 0) process.stdout.write('pushing\n');
}
await network.close();
