import { DEVNET_GENESIS_COMMITTEE } from '../core/devnet-protocol.ts';
import type { Committee } from '../light-client/committee.ts';

/**
 * The trust anchors of certified reads: the committee a network's light client starts from. For the devnet it is
 * its genesis committee (the same on every devnet chain). Testnet and mainnet have none built in: a committee is
 * pinned by configuration from a source the user trusts (see README, Certified reads).
 */
export function devnetAnchor(): Committee {
  return committeeFromHex(DEVNET_GENESIS_COMMITTEE);
}

export function committeeFromHex(committee: { epoch: number | string; members: { publicKey: string; stake: number | string }[] }): Committee {
  return {
    epoch: BigInt(committee.epoch),
    members: committee.members.map((m) => ({ publicKey: Uint8Array.from(Buffer.from(m.publicKey, 'hex')), stake: BigInt(m.stake) })),
  };
}
