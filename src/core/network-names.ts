/** The networks git walrus knows by name; each one's settings are in src/config/networks.ts. */
export type NetworkName = 'local' | 'devnet' | 'testnet' | 'mainnet';
export const NETWORK_NAMES: readonly NetworkName[] = ['local', 'devnet', 'testnet', 'mainnet'];
