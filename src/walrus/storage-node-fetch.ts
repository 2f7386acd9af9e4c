import { Agent, fetch as undiciFetch } from 'undici';

/**
 * Connections kept open to each storage node: the Walrus Rust client's default (its `max_node_connections`).
 * Requests beyond them wait for a free one.
 */
export const CONNECTIONS_PER_STORAGE_NODE = 10;

/**
 * The fetch the SDK's storage-node client is given (`storageNodeClientOptions.fetch`). The SDK sends every sliver of
 * a blob at once (two requests a shard: ~2,000 at 1000 shards) and asks for a third of them at once when it reads.
 * Node's global fetch bounds no origin's connections, so each of those requests opened a connection of its own and
 * paid its handshake (with TLS, two more round trips and a key exchange), and every node took hundreds of
 * connections a blob. Through this agent a node's requests share a few kept-alive connections, reused by the
 * store's next blob; over TLS a node that offers HTTP/2 takes them all on multiplexed streams. The requests
 * themselves are the SDK's, unchanged.
 */
export function storageNodeFetch(connectionsPerNode = CONNECTIONS_PER_STORAGE_NODE): typeof fetch {
  const dispatcher = new Agent({ connections: connectionsPerNode });
  return ((input: Parameters<typeof undiciFetch>[0], init?: Parameters<typeof undiciFetch>[1]) => undiciFetch(input, { ...init, dispatcher })) as unknown as typeof fetch;
}
