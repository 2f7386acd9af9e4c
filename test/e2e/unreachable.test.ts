import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { createWorld } from '../../scripts/harness/world.ts';
import type { World } from '../../scripts/harness/world.ts';
import { closedPort, silentServer } from '../support/silent-server.ts';

/**
 * A public network (testnet's settings) whose Sui node does not answer: a server that accepts connections and never
 * answers, and a port where nothing listens. With a short deadline (GIT_WALRUS_TIMEOUT) every request gives up in
 * time, is retried a bounded number of times, and the error says which endpoint, during what, and what to check.
 */
const REPOSITORY = `0x${'5'.repeat(64)}`;

const unreachable = suite('an unreachable Sui node');
let w: World;
unreachable.before(() => { w = createWorld('walrus-unreachable-'); });
unreachable.after(() => w.remove());

const testnet = (suiPort: number) => ({
  GIT_WALRUS_NETWORK: 'testnet',
  GIT_WALRUS_SUI_URL: `http://127.0.0.1:${suiPort}`,
  GIT_WALRUS_AGGREGATOR_URL: `http://127.0.0.1:${suiPort}`,
  GIT_WALRUS_PUBLISHER_URL: `http://127.0.0.1:${suiPort}`,
  GIT_WALRUS_PACKAGE_ID: `0x${'1'.repeat(64)}`,
  GIT_WALRUS_REGISTRY_ID: `0x${'2'.repeat(64)}`,
  GIT_WALRUS_TIMEOUT: '0.5',
});

unreachable('a node that accepts and never answers: ls-remote gives up after one deadline, the request not sent again, naming the node', async () => {
  const server = await silentServer();
  let result;
  try {
    result = await w.run('.', ['ls-remote', `walrus://${REPOSITORY}`], { env: testnet(server.port) });
    assert.is.not(result.code, 0);
    assert.match(result.stderr, `the Sui node at http://127.0.0.1:${server.port} did not answer within 0.5 s`);
    assert.match(result.stderr, 'while reading the repository');
    assert.match(result.stderr, 'GIT_WALRUS_SUI_URL');
    assert.match(result.stderr, 'GIT_WALRUS_TIMEOUT');
    assert.not.match(result.stderr, 'internal error');
  } finally {
    await server.close();
  }
  // A node that took a request and stayed silent for the whole deadline is not asked again (test/sui/deadlines.test.ts counts it).
  assert.not.match(result.stderr, 'attempts');
});

unreachable('a port where nothing listens: the refusal is named as such, with what to check', async () => {
  const port = await closedPort();
  const result = await w.run('.', ['ls-remote', `walrus://${REPOSITORY}`], { env: testnet(port) });
  assert.is.not(result.code, 0);
  assert.match(result.stderr, `the Sui node at http://127.0.0.1:${port} refused the connection`);
  assert.match(result.stderr, 'while reading the repository (3 attempts: nothing listens at that address)');
  assert.match(result.stderr, 'GIT_WALRUS_SUI_URL');
  assert.not.match(result.stderr, 'internal error');
});

unreachable('git walrus commands say the same (log)', async () => {
  const port = await closedPort();
  const result = await w.run('.', ['walrus', 'log', `walrus://${REPOSITORY}`], { env: testnet(port) });
  assert.is.not(result.code, 0);
  assert.match(result.stderr, `the Sui node at http://127.0.0.1:${port} refused the connection`);
  assert.not.match(result.stderr, 'internal error');
});

unreachable('GIT_WALRUS_TIMEOUT that is not a number of seconds is refused, naming the setting', async () => {
  const result = await w.run('.', ['ls-remote', `walrus://${REPOSITORY}`], { env: { ...testnet(1), GIT_WALRUS_TIMEOUT: 'soon' } });
  assert.is.not(result.code, 0);
  assert.match(result.stderr, "GIT_WALRUS_TIMEOUT must be a number of seconds greater than 0, got 'soon'");
});

unreachable.run();

const walrusDown = suite('an unreachable Walrus aggregator');

walrusDown('a silent aggregator: reading a blob gives up after the deadline and its retries, naming the aggregator', async () => {
  const w2 = createWorld('walrus-unreachable-');
  const server = await silentServer();
  try {
    const blobId = 'A'.repeat(43);
    const result = await w2.run('.', ['walrus', 'artifact', 'fetch', blobId, '--sha256', '0'.repeat(64), 'out'], { env: { ...testnet(1), GIT_WALRUS_AGGREGATOR_URL: `http://127.0.0.1:${server.port}` } });
    assert.is.not(result.code, 0);
    assert.match(result.stderr, `the Walrus aggregator at http://127.0.0.1:${server.port} did not answer within 0.5 s`);
    assert.match(result.stderr, 'GIT_WALRUS_AGGREGATOR_URL');
    assert.not.match(result.stderr, 'internal error');
  } finally {
    await server.close();
    w2.remove();
  }
});

walrusDown.run();
