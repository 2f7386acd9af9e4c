/**
 * One thing `git walrus verify` found wrong. `message` is complete on its own (it names the push seq, the pack, the
 * blob and what differs); `code` is stable for scripts and tests.
 */
export interface Finding {
  code: FindingCode;
  /** The push the finding is about, or null when it concerns the repository as a whole. */
  seq: number | null;
  /** The Walrus blob concerned, when there is one. */
  blobId?: string;
  message: string;
}

export type FindingCode =
  | 'LOG_FOREIGN_EVENT'
  | 'LOG_SEQ_GAP'
  | 'LOG_RECORD_MISMATCH'
  | 'LOG_HEAD_MISMATCH'
  | 'LOG_SEQ_MISMATCH'
  | 'STATE_REF_MISMATCH'
  | 'STATE_PACK_MISMATCH'
  | 'BLOB_UNAVAILABLE'
  | 'BLOB_ID_MISMATCH'
  | 'PACK_SIZE_MISMATCH'
  | 'PACK_SHA256_MISMATCH'
  | 'PACK_UNREADABLE'
  | 'PACK_DECRYPTION_FAILED'
  | 'PACK_NOT_ENCRYPTED'
  | 'COMMIT_MISSING'
  | 'HISTORY_INCOMPLETE'
  | 'PACK_EXPIRED'
  | 'CERT_ANSWER_REFUSED';

