/**
 * Links to public explorers, on the networks they index (testnet, mainnet): Suiscan for transactions and objects,
 * Walruscan for blobs. None elsewhere: the embedded network and a devnet are nobody's to browse.
 */
const INDEXED = new Set(['testnet', 'mainnet']);

export interface Explorer {
  tx(digest: string): string;
  object(id: string): string;
  blob(blobId: string): string;
}

export function explorerFor(network: string): Explorer | null {
  if (!INDEXED.has(network)) return null;
  return {
    tx: (digest) => `https://suiscan.xyz/${network}/tx/${encodeURIComponent(digest)}`,
    object: (id) => `https://suiscan.xyz/${network}/object/${encodeURIComponent(id)}`,
    blob: (blobId) => `https://walruscan.com/${network}/blob/${encodeURIComponent(blobId)}`,
  };
}
