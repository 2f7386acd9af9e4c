import type { ClientWithCoreApi } from '@mysten/sui/client';
import type { Signer } from '@mysten/sui/cryptography';
import { bcs } from '@mysten/sui/bcs';
import { fromBase64 } from '@mysten/sui/utils';
import type { Log } from '../core/log.ts';
import { MAX_KEYS_PER_REQUEST } from '../ports/key-service.ts';
import type { KeyService, LeaseGrant, OpenedKeys, RepositoryName, SecretsGrant } from '../ports/key-service.ts';

/** A network's Seal key servers, as its configuration names them (with the API key an operator may require). */
export interface SealSettings {
  keyServers: readonly { objectId: string; weight: number; apiKeyName?: string; apiKey?: string }[];
  threshold: number;
}

export interface KeyServiceInput {
  seal: SealSettings;
  client: ClientWithCoreApi;
  packageId: string;
  loadSigner: () => Promise<Signer>;
  /** The key servers' HTTP transport (the embedded network answers in process); global fetch otherwise. */
  fetch?: typeof fetch;
  /** Called before each key-server HTTP request with the keys it asks for (GIT_WALRUS_STATS counts them). */
  onRequest?: (keys: number) => void;
  /** Called when a sealed key is decrypted (once per key `open` returned, however often it is asked for). */
  onDecrypt?: () => void;
  log: Log;
}

/**
 * The keys a key-server request asks for: the `seal_approve` calls of the transaction in its JSON body (`ptb`, base64
 * BCS ProgrammableTransaction); 0 for any other request (the service's metadata).
 */
function keysAsked(init: RequestInit | undefined): number {
  try {
    const { ptb } = JSON.parse(String(init?.body)) as { ptb?: unknown };
    return typeof ptb === 'string' ? bcs.ProgrammableTransaction.parse(fromBase64(ptb)).commands.length : 0;
  } catch {
    return 0;
  }
}

/** `keys`, calling `onDecrypt` the first time each is asked for. */
async function counted(keys: Promise<OpenedKeys>, onDecrypt: (() => void) | undefined): Promise<OpenedKeys> {
  if (onDecrypt === undefined) return keys;
  return (await keys).map((key) => {
    let decrypted: Promise<Uint8Array> | null = null;
    return () => (decrypted ??= (onDecrypt(), key()));
  });
}

/**
 * The Seal key service, built on its first call: a session that only touches public repositories never loads
 * `@mysten/seal` and never asks a key server anything.
 */
export function lazyKeyService(input: KeyServiceInput, lease?: LeaseGrant, secrets?: SecretsGrant): KeyService {
  let service: Promise<KeyService> | null = null;
  const load = () => (service ??= import('../seal/key-service.ts').then(({ SealKeyService }) => {
    const transport = input.fetch ?? globalThis.fetch;
    const onRequest = input.onRequest;
    return new SealKeyService({
      suiClient: input.client,
      packageId: input.packageId,
      keyServers: input.seal.keyServers,
      threshold: input.seal.threshold,
      signer: input.loadSigner,
      fetch: onRequest ? (url, init) => { onRequest(keysAsked(init)); return transport(url, init); } : transport,
      log: input.log,
      ...(lease ? { lease } : {}),
      ...(secrets ? { secrets } : {}),
    });
  }));
  return {
    maxKeysPerRequest: MAX_KEYS_PER_REQUEST,
    ...(lease ? { lease } : {}),
    forLease: (grant: LeaseGrant) => lazyKeyService(input, grant),
    forLeaseSecrets: (grant: SecretsGrant) => lazyKeyService(input, undefined, grant),
    seal: async (identity: Uint8Array, dataKey: Uint8Array) => (await load()).seal(identity, dataKey),
    identityOf: async (sealedKey: string) => (await load()).identityOf(sealedKey),
    open: async (repository: RepositoryName, sealedKeys: readonly string[]) => counted((await load()).open(repository, sealedKeys), input.onDecrypt),
    // Loading the SDK is part of what is prepared; a failure to load surfaces at `open`.
    prepare: () => { load().then((service) => service.prepare(), () => {}); },
  };
}
