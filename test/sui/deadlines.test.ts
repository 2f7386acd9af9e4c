import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ServiceUnreachableError } from '../../src/core/service-unreachable.ts';
import { suiDeadlineFetch } from '../../src/sui/deadlines.ts';
import { closedPort, silentServer } from '../support/silent-server.ts';

/** What the deadline fetch throws for `url`, with quick back-off so the three tries of a refusal take little time. */
async function failure(url: string): Promise<ServiceUnreachableError> {
  const { fetch } = suiDeadlineFetch({ url, timeoutMs: 300, help: 'check it', retry: { attempts: 3, baseDelayMs: 1, maxDelayMs: 2 } });
  try {
    await fetch(url, { method: 'POST', body: 'x' });
  } catch (error) {
    assert.instance(error, ServiceUnreachableError);
    return error as ServiceUnreachableError;
  }
  throw new Error('expected the request to fail');
}

test('a node that took the request and stayed silent for the deadline is not asked again: one connection, one attempt', async () => {
  const server = await silentServer();
  try {
    const error = await failure(`http://127.0.0.1:${server.port}`);
    assert.is(error.unreachable.problem, 'timeout');
    assert.is(error.unreachable.attempts, 1);
    assert.is(server.connections(), 1);
    assert.is(error.message, `the Sui node at http://127.0.0.1:${server.port} did not answer within 0.3 s; check it`);
    // Still retryable for whoever runs the whole operation again later (the controller's next pass).
    assert.ok(error.retryable);
  } finally {
    await server.close();
  }
});

test('a refused connection is tried again with back-off, three attempts in all', async () => {
  const port = await closedPort();
  const error = await failure(`http://127.0.0.1:${port}`);
  assert.is(error.unreachable.problem, 'refused');
  assert.is(error.unreachable.attempts, 3);
  assert.match(error.message, '(3 attempts: nothing listens at that address)');
});

test.run();
