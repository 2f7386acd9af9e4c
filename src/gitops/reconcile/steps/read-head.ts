import { messageOf } from '../../../core/errors.ts';
import { UncertifiedHeadsError } from '../../../remote/errors.ts';
import type { ChainHead } from '../../watch/head-reader.ts';
import { failed, NEXT, stalling, type StepResult } from '../outcome.ts';
import type { Pass } from '../pass.ts';

/**
 * The ref's commit on chain, and the push that set it, read afresh every pass (level-triggered). The app then follows
 * the repository, so that its next push wakes it; a ref that does not exist yet waits for that push. Where the
 * controller builds only certified heads, a head it cannot prove is refused: nothing is built or rolled out, and the
 * condition and event say which RPC failed to prove what (a new push, or the resync, tries again).
 */
export async function readHead(pass: Pass): Promise<StepResult> {
  const { spec, deps } = pass;
  let chain: ChainHead;
  try {
    chain = await deps.readHead(spec.repository, spec.ref);
  } catch (error) {
    if (error instanceof UncertifiedHeadsError) {
      return failed(error, 'HeadNotCertified', `the head of ${spec.repository} is not built: the node's listing cannot be proved against the validators' certificates (${(error.data.problems as string[]).join('; ')})`);
    }
    return failed(error, 'ChainReadFailed', `reading ${spec.repository} from the chain failed: ${messageOf(error)}`);
  }
  deps.follow(pass.key, chain.repositoryId);
  if (!chain.head) return stalling('RefNotFound', `${chain.ref} does not exist in ${spec.repository}`);
  pass.status.head = chain.head;
  pass.learn('repositoryId', chain.repositoryId);
  pass.learn('head', chain.head);
  pass.learn('push', chain.push);
  return NEXT;
}
