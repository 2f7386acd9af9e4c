import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { discoverDevnet, DevnetInfoError, DevnetUnreachableError } from '../../src/config/devnet-discovery.ts';

const discover = suite('discoverDevnet');

discover('reads GET /v1/devnet from a real server on 127.0.0.1', async () => {
  const server = createServer((req, res) => {
    if (req.url !== '/v1/devnet') return void res.writeHead(404).end();
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ packageId: '0x1', registryId: '0x2', numShards: 50, suiRpcUrl: '/', suiGrpcUrl: '/grpc', walrusUrl: '/walrus' }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  try {
    assert.equal(await discoverDevnet(base), { packageId: '0x1', registryId: '0x2', numShards: 50, suiRpcUrl: base, suiGrpcUrl: `${base}/grpc`, walrusUrl: `${base}/walrus` });
  } finally {
    server.close();
  }
});

discover('a closed port is DevnetUnreachableError, a wrong answer DevnetInfoError', async () => {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  await new Promise((resolve) => server.close(resolve));
  await discoverDevnet(`http://127.0.0.1:${port}`).then(() => assert.unreachable(), (e) => {
    assert.instance(e, DevnetUnreachableError);
    assert.is(e.retryable, true);
  });
  const wrong: typeof fetch = async () => Response.json({ packageId: '0x1' });
  await discoverDevnet('http://127.0.0.1:1', wrong).then(() => assert.unreachable(), (e) => assert.instance(e, DevnetInfoError));
});

discover.run();
