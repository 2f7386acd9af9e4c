// The app itself, apart from listening: what the tests (test/app.test.js) call and server.js serves.
import express from 'express';
import { readFileSync } from 'node:fs';
import { hostname } from 'node:os';

const { name, version } = JSON.parse(readFileSync(new URL('./package.json', import.meta.url), 'utf8'));
/** Which process answered: tells replicas apart behind a Service or an ingress. */
export const instance = `${hostname()}-${process.pid}`;

export function greeting(env = process.env) {
  return env.GREETING ?? 'hello';
}

export function createApp() {
  const app = express();
  app.get('/', (request, response) => {
    response.json({ app: name, version, greeting: greeting(), instance, client: request.socket.remoteAddress });
  });
  return app;
}
