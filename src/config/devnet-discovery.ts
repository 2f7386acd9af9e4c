import { UsageError, WalrusGitError, messageOf } from '../core/errors.ts';
import { DEFAULT_TIMEOUT_MS } from '../core/service-unreachable.ts';
import type { SealConfig } from '../core/devnet-protocol.ts';
import { DEVNET_INFO_PATH } from '../core/devnet-protocol.ts';

/**
 * What a `git walrus devnet` server tells its clients (GET <devnet url>/v1/devnet): the ids of the contract it
 * published at genesis, its Walrus shard count, and where its Sui RPC, Walrus API and faucet listen.
 */
export interface DevnetInfo {
  packageId: string;
  registryId: string;
  /** The compute market's Market object (servers that predate the market have none). */
  marketId?: string;
  numShards: number;
  suiRpcUrl: string;
  /** Base URL of its Sui gRPC API (gRPC-web); absent on a server that speaks only JSON-RPC. */
  suiGrpcUrl?: string;
  walrusUrl: string;
  faucetUrl?: string;
  /** Its Seal key servers and threshold (absent on a server that predates them). */
  seal?: SealConfig;
  /** Its Walrus System object (Blob objects are extended and deleted through it; absent on older servers). */
  walrusSystemObjectId?: string;
  /** Its Walrus Staking object, naming the emulated storage nodes (absent when it runs none). */
  walrusStakingObjectId?: string;
}


export class DevnetUnreachableError extends WalrusGitError {
  constructor(url: string, problem: string, cause?: unknown) {
    super('DEVNET_UNREACHABLE', `the devnet at ${url} did not answer ${DEVNET_INFO_PATH} (${problem}); is \`git walrus devnet\` running there?`, { url }, { retryable: true, cause });
  }
}

/** What to do: run the same git-remote-walrus version on both sides of `git walrus devnet`. */
export class DevnetInfoError extends WalrusGitError {
  constructor(url: string, problem: string) {
    super('DEVNET_INFO_INVALID', `the devnet at ${url} answered ${DEVNET_INFO_PATH} with ${problem}; client and server versions may differ`, { url });
  }
}

/**
 * `timeoutMs`: how long the devnet server may take to answer (the network deadline, 30 s by default). A server that is
 * down refuses at once; one that is up answers in milliseconds, but on a loaded 2-core node (a build Job's tool step
 * beside other builds) its event loop was seen to fall 10 s behind, failing the step for nothing.
 */
export async function discoverDevnet(devnetUrl: string, fetchFn: typeof fetch = globalThis.fetch, timeoutMs = DEFAULT_TIMEOUT_MS): Promise<DevnetInfo> {
  let url: URL;
  try {
    url = new URL(DEVNET_INFO_PATH, devnetUrl);
  } catch {
    throw new UsageError(`the devnet URL '${devnetUrl}' is not a URL: set GIT_WALRUS_DEVNET_URL (or git config walrus.devnetUrl) to the URL \`git walrus devnet\` prints, e.g. http://127.0.0.1:9000`, { url: devnetUrl });
  }
  let response: Response;
  const deadline = AbortSignal.timeout(timeoutMs);
  try {
    response = await fetchFn(url, { signal: deadline });
  } catch (error) {
    throw new DevnetUnreachableError(devnetUrl, deadline.aborted ? `no answer within ${timeoutMs / 1000} s` : messageOf(error), error);
  }
  if (!response.ok) throw new DevnetUnreachableError(devnetUrl, `HTTP ${response.status}`);
  const body = (await response.json().catch(() => undefined)) as Record<string, unknown> | undefined;
  if (typeof body !== 'object' || body === null) throw new DevnetInfoError(devnetUrl, 'something other than a JSON object');
  for (const key of ['packageId', 'registryId', 'suiRpcUrl', 'walrusUrl'] as const) {
    if (typeof body[key] !== 'string' || body[key] === '') throw new DevnetInfoError(devnetUrl, `no "${key}"`);
  }
  if (!Number.isInteger(body.numShards) || (body.numShards as number) < 4) throw new DevnetInfoError(devnetUrl, 'no valid "numShards"');
  // Service URLs may be relative to the devnet URL (the server need not know how clients reach it).
  const absolute = (value: string) => new URL(value, devnetUrl).href.replace(/\/$/, '');
  return {
    packageId: body.packageId as string,
    registryId: body.registryId as string,
    numShards: body.numShards as number,
    suiRpcUrl: absolute(body.suiRpcUrl as string),
    walrusUrl: absolute(body.walrusUrl as string),
    ...(typeof body.suiGrpcUrl === 'string' ? { suiGrpcUrl: absolute(body.suiGrpcUrl) } : {}),
    ...(typeof body.faucetUrl === 'string' ? { faucetUrl: absolute(body.faucetUrl) } : {}),
    ...(body.seal === undefined ? {} : { seal: sealInfo(devnetUrl, body.seal) }),
    ...(typeof body.marketId === 'string' ? { marketId: body.marketId } : {}),
    ...(typeof body.walrusSystemObjectId === 'string' ? { walrusSystemObjectId: body.walrusSystemObjectId } : {}),
    ...(typeof body.walrusStakingObjectId === 'string' ? { walrusStakingObjectId: body.walrusStakingObjectId } : {}),
  };
}

function sealInfo(devnetUrl: string, value: unknown): SealConfig {
  const seal = value as Partial<SealConfig> | null;
  const valid = typeof seal === 'object' && seal !== null && Array.isArray(seal.keyServers) && Number.isInteger(seal.threshold)
    && seal.keyServers.every((server) => typeof server?.objectId === 'string' && Number.isInteger(server.weight));
  if (!valid) throw new DevnetInfoError(devnetUrl, 'an invalid "seal" (expected {keyServers: [{objectId, weight}], threshold})');
  return { keyServers: seal.keyServers!.map(({ objectId, weight }) => ({ objectId, weight })), threshold: seal.threshold! };
}
