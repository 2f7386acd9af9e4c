import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as assert from 'uvu/assert';
import type { ClientWithCoreApi } from '@mysten/sui/client';
import { Transaction } from '@mysten/sui/transactions';
import { SuiJsonRpcClient } from '@mysten/sui/jsonRpc';
import { SuiGrpcClient } from '@mysten/sui/grpc';
import { requestSuiFromFaucetV2 } from '@mysten/sui/faucet';
import { Ed25519Keypair } from '@mysten/sui/keypairs/ed25519';
import { openLocalNetwork } from '../../src/devnet/local-network.ts';
import { startDevnetServer } from '../../src/devnet/server.ts';
import { SuiLedger } from '../../src/sui/ledger.ts';

/** One way of reaching a devnet: the in-process client, or `SuiJsonRpcClient` / `SuiGrpcClient` against a server on a free port. */
export interface Front {
  name: string;
  client: ClientWithCoreApi;
  packageId: string;
  registryId: string;
  marketId: string;
  /** The state directory; the chain is in `<dir>/chain`. */
  dir: string;
  faucet(address: string): Promise<void>;
  close(): Promise<void>;
}

export type FrontFactory = { name: string; open(): Promise<Front> };

function tempDir(): string {
  return mkdtempSync(join(tmpdir(), 'walrus-git-devnet-'));
}

export const inProcess: FrontFactory = {
  name: 'in-process',
  async open() {
    const dir = tempDir();
    const network = await openLocalNetwork(dir);
    return {
      name: 'in-process', client: network.client, packageId: network.packageId, registryId: network.registryId, marketId: network.marketId, dir,
      faucet: network.faucet,
      close: async () => { await network.close(); rmSync(dir, { recursive: true, force: true }); },
    };
  },
};

function serverFront(name: string, connect: (url: string) => ClientWithCoreApi): FrontFactory {
  return {
    name,
    async open() {
      const dir = tempDir();
      const server = await startDevnetServer({ dir, port: 0 });
      return {
        name,
        client: connect(server.suiRpcUrl),
        packageId: server.packageId, registryId: server.registryId, marketId: server.marketId, dir,
        faucet: async (recipient) => { await requestSuiFromFaucetV2({ host: server.faucetUrl, recipient }); },
        close: async () => { await server.close(); rmSync(dir, { recursive: true, force: true }); },
      };
    },
  };
}

export const jsonRpcServer = serverFront('json-rpc server', (url) => new SuiJsonRpcClient({ url, network: 'localnet' }));
export const grpcWebServer = serverFront('grpc-web server', (baseUrl) => new SuiGrpcClient({ baseUrl, network: 'localnet' }));

export const FRONTS: FrontFactory[] = [inProcess, jsonRpcServer, grpcWebServer];

/** A suite's context: a front and two funded ledgers on it, signing as two fresh addresses. */
export interface TwoLedgers {
  front: Front;
  owner: SuiLedger;
  other: SuiLedger;
  otherAddress: string;
}

/** Opens `factory` and funds an owner and another address from its faucet. */
export async function openWithTwoLedgers(factory: FrontFactory): Promise<TwoLedgers> {
  const front = await factory.open();
  const ownerKey = Ed25519Keypair.generate();
  const otherKey = Ed25519Keypair.generate();
  await front.faucet(ownerKey.toSuiAddress());
  await front.faucet(otherKey.toSuiAddress());
  const common = { client: front.client, packageId: front.packageId, registryId: front.registryId };
  return {
    front,
    owner: new SuiLedger({ ...common, signer: ownerKey }),
    other: new SuiLedger({ ...common, signer: otherKey }),
    otherAddress: otherKey.toSuiAddress(),
  };
}

/**
 * Dry-runs a transaction as `sender` with no gas payment, signature or funds, as a Seal key server checks its
 * policy; returns 'ok' or the abort's name (`name` of its code, in the aborting module's constants).
 */
export async function simulateAs(front: Front, sender: string, name: (code: number) => string | undefined, build: (tx: Transaction) => void): Promise<string> {
  const draft = new Transaction();
  build(draft);
  const tx = Transaction.fromKind(await draft.build({ client: front.client, onlyTransactionKind: true }));
  tx.setSender(sender);
  tx.setGasPayment([]);
  tx.setExpiration({ None: true });
  tx.setGasBudget(500_000_000);
  tx.setGasPrice(BigInt((await front.client.core.getReferenceGasPrice()).referenceGasPrice));
  const result = await front.client.core.simulateTransaction({ transaction: await tx.build({ client: front.client }) });
  if (result.$kind === 'Transaction') return 'ok';
  const error = result.FailedTransaction.status.error!;
  assert.is(error.$kind, 'MoveAbort', error.message);
  return name(Number(error.MoveAbort!.abortCode)) ?? `code ${error.MoveAbort!.abortCode}`;
}
