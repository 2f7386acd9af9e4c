/**
 * How long the devnet's HTTP servers (its Sui, Walrus and Seal front and each emulated storage node) keep an idle
 * client connection; Node's default is 5 s. Real nodes' servers keep them far longer, and a client such as the Walrus
 * SDK blocks its thread for seconds encoding the next blob: with 5 s its kept connections were closed under it
 * between two requests, and the next requests reconnected (or failed once and were retried).
 */
export const IDLE_CONNECTION_MS = 60_000;
