import type { DeployedRecord } from '../../ports/market.ts';
import { href } from '../html.ts';
import type { WebContext } from '../web-context.ts';

export const PUSHES_PER_PAGE = 50;

/** The push log page (newest first) that holds push `seq`, anchored at it. */
export function pushLink(id: string, seq: number, newest: number): string {
  const pageNo = Math.floor((newest - seq) / PUSHES_PER_PAGE) + 1;
  return `${href(`/repos/${id}/pushes`, { page: pageNo > 1 ? pageNo : undefined })}#push-${seq}`;
}

/** Every deploy record of a repository; none where the network has no market. */
export async function deploymentsOf(context: WebContext, id: string): Promise<DeployedRecord[]> {
  const market = await marketOf(context);
  return market === null ? [] : market.listDeployments(id);
}

export async function marketOf(context: WebContext) {
  if (context.services.market === undefined) return null;
  try {
    return await context.services.market();
  } catch (error) {
    if ((error as { code?: unknown }).code === 'MARKET_NOT_PUBLISHED') return null;
    throw error;
  }
}
