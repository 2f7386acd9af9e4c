/**
 * `git walrus lease open`: a private repository is leased only by someone who may read it (its owner, a writer or a
 * reader), since the lease's provider gets its keys for as long as the tenant may read it. Checked before any
 * transaction so a refused tenant pays nothing and gets one line naming the owner; `market::open_lease` refuses it
 * all the same (ECannotRead), and that refusal is told in the same words.
 */
import { CannotLeaseError, canRead } from '../../core/read-access.ts';
import { WalrusGitError } from '../../core/errors.ts';
import type { Ledger, TxReceipt } from '../../ports/ledger.ts';
import type { MarketLedger } from '../../ports/market.ts';

export interface OpenLeaseDeps {
  ledger: Pick<Ledger, 'getRepository'>;
  market: Pick<MarketLedger, 'openLease' | 'signerAddress'>;
}

export async function openLease(deps: OpenLeaseDeps, providerId: string, repositoryId: string, ref: string, deposit: bigint): Promise<TxReceipt & { leaseId: string }> {
  const [repository, address] = await Promise.all([deps.ledger.getRepository(repositoryId), deps.market.signerAddress()]);
  if (repository.private && !canRead(repository, address)) throw new CannotLeaseError(repository, address);
  try {
    return await deps.market.openLease(providerId, repositoryId, ref, deposit);
  } catch (error) {
    // The owner removed the signer as a reader between the check and the transaction.
    if (error instanceof WalrusGitError && error.code === 'MARKET_REFUSED' && error.data.abortName === 'ECannotRead') {
      throw new CannotLeaseError(repository, address);
    }
    throw error;
  }
}
