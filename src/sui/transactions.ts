import { ServiceUnreachableError } from '../core/service-unreachable.ts';
import type { ClientWithCoreApi, SuiClientTypes } from '@mysten/sui/client';
import { SimulationError } from '@mysten/sui/client';
import type { Signer } from '@mysten/sui/cryptography';
import type { Transaction } from '@mysten/sui/transactions';
import { normalizeSuiAddress } from '@mysten/sui/utils';
import { InternalError, messageOf } from '../core/errors.ts';
import type { Log } from '../core/log.ts';
import { silentLog } from '../core/log.ts';
import { InsufficientGasError, TransactionFailedError } from './errors.ts';

/** A Move abort of our package, as the module that sent the transaction sees it. */
export interface ModuleAbort { module: string; functionName: string; code: number; digest: string | null }

/** What one transaction is about, so that its failure comes back as the caller's typed error. */
export interface Submission {
  /** Names the transaction in errors (`pushing refs/heads/main`). */
  what: string;
  /** The caller's typed error for an abort of our package (`sender`: the signer's address); undefined: the default. */
  onAbort?: (abort: ModuleAbort, sender: string) => Error | undefined | Promise<Error | undefined>;
  /** The error when the network says an input object does not exist. */
  notFound?: () => Error;
}

export type ExecutedTransaction = SuiClientTypes.Transaction<{ effects: true; events: true; objectTypes: true }>;

/**
 * Fills a fresh transaction for one attempt (numbered from 0). It returns true when the first attempt carries gas
 * coins resolved earlier (a push's dry run during its upload): a refusal for a busy input then means those coins were
 * spent meanwhile, and the next attempt, which selects gas anew, goes at once instead of after a back-off.
 */
export type Compose = (tx: Transaction, attempt: number) => boolean | void;

/** What another module of the package needs to send its own transactions (the market: SuiLedger serves it). */
export interface TransactionSubmitter {
  signerAddress(): Promise<string>;
  /**
   * Signs and executes one transaction: `compose` fills it, `onAbort` turns the module's aborts into typed errors
   * (anything else becomes TransactionFailedError, InsufficientGasError…). Resolves when the transaction is final.
   */
  submit(compose: (tx: Transaction) => void, what: string, onAbort: (abort: ModuleAbort) => Error | undefined): Promise<ExecutedTransaction>;
}

export interface TransactionRunnerOptions {
  client: ClientWithCoreApi;
  /** The key that signs, or how to load it (called at most once, on first need; its failure is every write's). */
  signer: Signer | (() => Promise<Signer>);
  /**
   * The signer's address without loading the signer (called at most once): a push learns who it is before it
   * uploads, and the key is only needed to sign at the end. The loaded signer must have this address, or no
   * transaction is signed. Without it, `signerAddress()` loads the signer.
   */
  signerAddress?: () => Promise<string>;
  /** Our package: only its aborts go to `Submission.onAbort`. */
  packageId: string;
  log?: Log;
  /**
   * Runs one submission (build with gas selection, sign, execute, wait for finality) with no other submission of
   * the same signer under way, across processes: transactions of one address spend the same gas coins, and two at
   * once make the loser be refused (or, on a real network, risk equivocating the coin). The composition root passes
   * a lock; without one, submissions are not serialized.
   */
  exclusive?: <T>(address: string, submit: () => Promise<T>) => Promise<T>;
  /** Waits between attempts after a refusal for a busy input object (tests shorten them). */
  retryDelaysMs?: readonly number[];
}

/** After a refusal for a busy input object: a few retries, backing off, before the refusal reaches the user. */
const RETRY_DELAYS_MS = [200, 500, 1000, 2000];

/**
 * Sends the transactions of one signer over `client.core`: loads the signing stack on first need (never for reads),
 * serializes submissions per address, retries a refusal for a busy gas coin, and turns failures into typed errors.
 * The repository ledger sends through it, and the market through the ledger.
 */
export class TransactionRunner {
  readonly #client: ClientWithCoreApi;
  readonly #loadSigner: () => Promise<Signer>;
  readonly #loadAddress: (() => Promise<string>) | undefined;
  #signing: Promise<{ signer: Signer; address: string }> | null = null;
  #address: Promise<string> | null = null;
  readonly #packageId: string;
  readonly #log: Log;
  readonly #exclusive: NonNullable<TransactionRunnerOptions['exclusive']>;
  readonly #retryDelaysMs: readonly number[];

  constructor(options: TransactionRunnerOptions) {
    this.#client = options.client;
    const signer = options.signer;
    this.#loadSigner = typeof signer === 'function' ? signer : async () => signer;
    this.#loadAddress = options.signerAddress;
    this.#packageId = normalizeSuiAddress(options.packageId);
    this.#log = options.log ?? silentLog;
    this.#exclusive = options.exclusive ?? ((_address, submit) => submit());
    this.#retryDelaysMs = options.retryDelaysMs ?? RETRY_DELAYS_MS;
  }

  signerAddress(): Promise<string> {
    const load = this.#loadAddress;
    return (this.#address ??= load ? load().then(normalizeSuiAddress) : this.#signer().then(({ address }) => address));
  }

  /** Starts loading the signing stack, so that the first write does not wait for it. */
  prepareWrites(): void {
    // Errors are left for the write to report (it awaits the same promises).
    this.#signer().catch(() => {});
    import('@mysten/sui/transactions').catch(() => {});
  }

  #signer(): Promise<{ signer: Signer; address: string }> {
    return (this.#signing ??= (async () => {
      const signer = await this.#loadSigner();
      const address = normalizeSuiAddress(signer.toSuiAddress());
      // Never sign as someone other than the address the caller planned with (the writer check, the gas lock).
      if (this.#loadAddress) {
        const expected = await this.signerAddress();
        if (address !== expected) throw new InternalError(`the signing key's address ${address} differs from the signer address ${expected}`, { address, expected });
      }
      return { signer, address };
    })());
  }

  /**
   * Builds (`compose` fills a fresh transaction for each attempt, numbered from 0: a retry selects gas anew), signs
   * and executes one transaction and waits until it is final, exclusively for the signer. A refusal for a busy input
   * object (the gas coin spent meanwhile by another transaction of this address) means nothing executed: it is
   * retried a few times, backing off; at once if the refused attempt carried gas coins resolved earlier (`Compose`).
   * An abort or an executed failure never is.
   */
  async execute(compose: Compose, submission: Submission): Promise<ExecutedTransaction> {
    const { signer, address } = await this.#signer();
    const { Transaction } = await import('@mysten/sui/transactions');
    return this.#exclusive(address, async () => {
      let backOffs = 0;
      for (let attempt = 0; ; attempt++) {
        const tx = new Transaction();
        const earlierGas = compose(tx, attempt) === true && attempt === 0;
        let result: SuiClientTypes.TransactionResult<{ effects: true; events: true; objectTypes: true }>;
        try {
          result = await this.#client.core.signAndExecuteTransaction({ transaction: tx, signer, include: { effects: true, events: true, objectTypes: true } });
        } catch (error) {
          // The SDK estimates gas by simulating first: an abort found then never reaches the chain.
          if (error instanceof SimulationError && error.executionError) throw await this.#failure(error.executionError, null, submission, address);
          const busy = isBusyInput(error);
          if (busy && earlierGas) {
            this.#log.debug(`${submission.what}: the gas coins resolved earlier were spent meanwhile (${(error as Error).message}); selecting gas anew`);
            continue;
          }
          const delay = busy ? this.#retryDelaysMs[backOffs++] : undefined;
          if (delay === undefined) throw await this.#refusal(error, submission, address);
          this.#log.debug(`${submission.what}: refused while an input object is busy (${(error as Error).message}); retrying in ${delay} ms`);
          await new Promise((resolve) => setTimeout(resolve, delay));
          continue;
        }
        if (result.$kind === 'FailedTransaction') throw await this.#failure(result.FailedTransaction.status.error!, result.FailedTransaction.digest, submission, address);
        await this.#client.core.waitForTransaction({ result });
        return result.Transaction;
      }
    });
  }

  /** `address`: the signer's, for the errors that name who was refused. */
  async #failure(error: SuiClientTypes.ExecutionError, digest: string | null, submission: Submission, address: string): Promise<Error> {
    const location = error.MoveAbort?.location;
    const ours = error.$kind === 'MoveAbort' && location?.package !== undefined && normalizeSuiAddress(location.package) === this.#packageId;
    if (ours && submission.onAbort) {
      const abort = { module: location!.module ?? '', functionName: location!.functionName ?? '', code: Number(error.MoveAbort!.abortCode), digest };
      const mapped = await submission.onAbort(abort, address);
      if (mapped) return mapped;
    }
    if (/InsufficientGas/.test(error.message)) return new InsufficientGasError(address, error.message);
    return new TransactionFailedError(submission.what, error.message, { digest, kind: error.$kind });
  }

  /** A transaction refused before execution (validator input checks) or that could not be built. */
  async #refusal(error: unknown, submission: Submission, address: string): Promise<unknown> {
    if (error instanceof ServiceUnreachableError) return error.during(submission.what);
    const message = messageOf(error);
    if (/lower than the needed amount|GasBalanceTooLow|No valid gas coins found|InsufficientGas/i.test(message)) return new InsufficientGasError(address, message);
    if (/Could not find the referenced object|does not exist|notExists/i.test(message) && submission.notFound) return submission.notFound();
    // A fullnode's refusal (JSON-RPC error object, or gRPC status: protobuf-ts's RpcError, told by name so this
    // module need not load the gRPC client): the user needs its message, not a stack trace.
    // Imported on a refusal only: a session whose writes succeed (or that uses gRPC) never loads the JSON-RPC client.
    const { JsonRpcError } = await import('@mysten/sui/jsonRpc');
    if (error instanceof JsonRpcError) return new TransactionFailedError(submission.what, message, { rpcCode: error.code });
    if (error instanceof Error && error.name === 'RpcError') return new TransactionFailedError(submission.what, message, { grpcStatus: (error as Error & { code: string }).code });
    return error;
  }
}

/**
 * A refusal before execution because an owned input object (in practice the gas coin) is not at the version the
 * transaction names, or is locked by another transaction in flight: Sui's ObjectVersionUnavailableForConsumption
 * and ObjectLockConflict, whatever the transport wraps them in.
 */
function isBusyInput(error: unknown): boolean {
  const message = messageOf(error);
  return /not available for consumption|ObjectVersionUnavailableForConsumption|already locked by a different transaction|ObjectLockConflict/i.test(message);
}
