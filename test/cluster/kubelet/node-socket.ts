/**
 * The kubelet's listening socket on the node's own address. That address lives in the node's network namespace,
 * which this process is not in, so a short-lived Node process started there binds it and hands the listening socket
 * over its IPC channel; from then on this process accepts on it (a socket stays in the namespace it was made in).
 * Also the kubelet's self-signed serving certificate, as a kubelet makes one when no certificate is given.
 */
import { execFile } from 'node:child_process';
import type { ChildProcess, SpawnOptions } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import type { Server } from 'node:net';
import { join } from 'node:path';
import { promisify } from 'node:util';

type SpawnInNode = (command: string, args: string[], options: SpawnOptions) => ChildProcess;

const BIND = `const server = require('node:net').createServer();
server.on('error', (err) => { process.send({ error: err.message }); process.exit(1); });
server.listen(Number(process.argv[2]), process.argv[1], () => process.send({ listening: true }, server, () => process.exit(0)));`;

export function listenInNode(spawnInNode: SpawnInNode, host: string, port: number): Promise<Server> {
  return new Promise((resolve, reject) => {
    const child = spawnInNode(process.execPath, ['-e', BIND, host, String(port)], { stdio: ['ignore', 'ignore', 'pipe', 'ipc'] });
    let stderr = '';
    child.stderr?.on('data', (chunk) => { stderr += chunk; });
    child.on('message', (message: { listening?: boolean; error?: string }, handle) => {
      if (message.listening && handle) resolve(handle as Server);
      else reject(new Error(`the kubelet could not listen on ${host}:${port} in the node's namespace: ${message.error}`));
    });
    child.on('error', reject);
    child.on('exit', (code) => {
      if (code !== 0) reject(new Error(`the kubelet could not listen on ${host}:${port} in the node's namespace (exit ${code}): ${stderr.trim()}`));
    });
  });
}

/** Written to `<dir>/kubelet.crt` and `kubelet.key`, where a kubelet keeps the one it made. */
export async function selfSignedCertificate(nodeName: string, nodeIp: string, dir: string): Promise<{ cert: Buffer; key: Buffer }> {
  const [certPath, keyPath] = [join(dir, 'kubelet.crt'), join(dir, 'kubelet.key')];
  await promisify(execFile)('openssl', [
    'req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-days', '365',
    '-subj', `/CN=${nodeName}@${Math.floor(Date.now() / 1000)}`, '-addext', `subjectAltName=IP:${nodeIp},DNS:${nodeName}`,
    '-keyout', keyPath, '-out', certPath,
  ]);
  const [cert, key] = await Promise.all([readFile(certPath), readFile(keyPath)]);
  return { cert, key };
}
