import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { walrusHome, readConfigFile, ConfigFileError } from '../../src/config/home.ts';

const home = suite('walrusHome');

home('is GIT_WALRUS_HOME, else ~/.git-walrus', () => {
  assert.is(walrusHome({ GIT_WALRUS_HOME: '/srv/gw', HOME: '/home/me' }), '/srv/gw');
  assert.is(walrusHome({ HOME: '/home/me' }), '/home/me/.git-walrus');
});

home.run();

const read = suite('readConfigFile');

read('an absent file is an empty config; a present one is parsed and checked', () => {
  const dir = mkdtempSync(join(tmpdir(), 'walrus-home-'));
  assert.equal(readConfigFile(dir), {});
  writeFileSync(join(dir, 'config.json'), JSON.stringify({ network: 'testnet', epochs: 10, networks: { testnet: { packageId: '0x1' } } }));
  assert.equal(readConfigFile(dir), { network: 'testnet', epochs: 10, networks: { testnet: { packageId: '0x1' } } });
  for (const bad of ['[]', '{"network": 3}', '{"epochs": 0}', 'nope']) {
    writeFileSync(join(dir, 'config.json'), bad);
    assert.throws(() => readConfigFile(dir), (e: unknown) => e instanceof ConfigFileError);
  }
});

read.run();
