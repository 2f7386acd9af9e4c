import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { toolEnvironment } from '../../src/gitops/build/tool-environment.ts';

test('a local rebuild passes a proxy CA and proxy settings on to npm, and nothing else of the environment', () => {
  const env = { NODE_EXTRA_CA_CERTS: '/etc/proxy-ca.pem', HTTPS_PROXY: 'http://proxy:3128', no_proxy: 'localhost', GIT_WALRUS_KEY: 'suiprivkey1…', HOME: '/home/ada', PATH: '/usr/bin' };
  assert.equal(toolEnvironment(env), { NODE_EXTRA_CA_CERTS: '/etc/proxy-ca.pem', HTTPS_PROXY: 'http://proxy:3128', no_proxy: 'localhost' });
  assert.equal(toolEnvironment({}), {});
});

test.run();
