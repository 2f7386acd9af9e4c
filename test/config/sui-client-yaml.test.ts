import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { parseSuiClientYaml } from '../../src/config/sui-client-yaml.ts';

const parse = suite('parseSuiClientYaml');

parse('reads keystore, envs, active env and address; ignores the rest', () => {
  const config = parseSuiClientYaml([
    '---',
    'keystore:',
    '  File: /home/me/.sui/sui_config/sui.keystore',
    'external_keys: ~',
    'envs:',
    '  - alias: devnet',
    '    rpc: "https://fullnode.devnet.sui.io:443"',
    '    ws: ~',
    '    basic_auth: ~',
    "  - alias: local",
    "    rpc: 'http://127.0.0.1:9000'",
    'active_env: local # the one we use',
    'active_address: "0xabc"',
  ].join('\n'));
  assert.equal(config, {
    keystorePath: '/home/me/.sui/sui_config/sui.keystore',
    envs: [{ alias: 'devnet', rpc: 'https://fullnode.devnet.sui.io:443' }, { alias: 'local', rpc: 'http://127.0.0.1:9000' }],
    activeEnv: 'local',
    activeAddress: '0xabc',
  });
});

parse('treats ~ and missing keys as unset', () => {
  assert.equal(parseSuiClientYaml('active_address: ~\nkeystore:\n  File: ~\n'), { envs: [] });
});

parse.run();
