/** The user's warm encoder as `git walrus daemon` sees it (docs/architecture.md, The warm encoder). */
export interface WarmEncoderStatus {
  pid: number;
  socket: string;
  startedMs: number;
  lastUsedMs: number;
  /** It exits by itself once idle this long. */
  idleOutMs: number;
  ids: number;
  encodeMs: number;
  rssBytes: number;
  /** Shard counts whose encoders it has built. */
  shards: number[];
}

export interface WarmEncoderControl {
  socket: string;
  /** Null when none runs. */
  status(): Promise<WarmEncoderStatus | null>;
  /** False when none ran. */
  stop(): Promise<boolean>;
}
