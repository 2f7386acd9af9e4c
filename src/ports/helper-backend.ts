/**
 * What the remote-helper protocol session (src/protocol/session.ts) asks of the helper's use-cases
 * (src/remote/helper.ts), and what they answer: the session owns the protocol, they own the work.
 */
import type { ObjectFormat } from '../core/object-id.ts';

export interface HelperBackend {
  option(name: string, value: string | null): OptionAnswer;
  list(forPush: boolean): Promise<RefListing>;
  /**
   * `connected`: the fetched objects' links were checked (answered `connectivity-ok`); `lock`: a pack file git
   * should unlock once its refs are updated (answered `lock <file>`).
   */
  fetch(requests: FetchRequest[]): Promise<{ connected: boolean; lock: string | null } | void>;
  push(requests: PushRequest[]): Promise<PushResult[]>;
}

export interface FetchRequest {
  id: string;
  name: string;
}

export interface PushRequest {
  /** Local ref or object to push; null deletes `dst`. */
  src: string | null;
  dst: string;
  force: boolean;
}

export type OptionAnswer = 'ok' | 'unsupported' | { error: string };

export interface RefListing {
  /** Present when git asked for it (`option object-format`) and the repository has a format. */
  objectFormat: ObjectFormat | null;
  /** The branch HEAD points to, listed as `@<head> HEAD` so clones check it out; null when it does not exist. */
  head: string | null;
  refs: ReadonlyMap<string, string>;
}

/** One push result: `ok <dst>`, or `error <dst> <why>` with git's reason words (`fetch first`, `stale info`, ...). */
export type PushResult = { dst: string; ok: true } | { dst: string; ok: false; reason: string };
