import type { RepositoryInfo } from './ledger.ts';

/** A Repository version a quorum of Sui validators certified, and the checkpoint that says so. */
export interface CertifiedRepository {
  repository: RepositoryInfo;
  version: string;
  checkpoint: string;
  epoch: string;
  timestampMs: number;
  /** The RPC that served it. */
  rpc: string;
}

/** What one configured RPC answered: the version it proved, or what did not verify. */
export interface RpcAnswer {
  rpc: string;
  version?: string;
  checkpoint?: string;
  problem?: string;
}

/**
 * Reads that trust no single Sui node: each configured RPC's answer is verified against the certified chain, and
 * the highest certified version wins (an RPC can withhold newer state, never forge it).
 */
export interface CertifiedReads {
  /** Throws (code NOT_CERTIFIED) when no RPC's answer verifies, naming each one's problem. */
  repository(id: string): Promise<{ best: CertifiedRepository; answers: RpcAnswer[] }>;
}
