/**
 * The few keys we need from the Sui CLI's `client.yaml`, read leniently line by line (no YAML dependency):
 *
 *   keystore:
 *     File: /home/me/.sui/sui_config/sui.keystore
 *   envs:
 *     - alias: testnet
 *       rpc: "https://fullnode.testnet.sui.io:443"
 *   active_env: testnet
 *   active_address: "0x…"
 *
 * Unknown keys are ignored; `~` means unset. Pure.
 */
export interface SuiClientConfig {
  keystorePath?: string;
  activeAddress?: string;
  activeEnv?: string;
  envs: { alias: string; rpc?: string }[];
}

export function parseSuiClientYaml(text: string): SuiClientConfig {
  const config: SuiClientConfig = { envs: [] };
  let section = '';
  for (const line of text.split(/\r?\n/)) {
    if (/^\s*(#|$)/.test(line) || line.startsWith('---')) continue;
    const match = /^(\s*)(-\s+)?([A-Za-z_]+):\s*(.*?)\s*$/.exec(line);
    if (match === null) continue;
    const [, indent, dash, key, rawValue] = match as unknown as [string, string, string | undefined, string, string];
    const value = scalar(rawValue);
    if (indent === '' && dash === undefined) {
      section = key;
      if (key === 'active_address' && value !== undefined) config.activeAddress = value;
      if (key === 'active_env' && value !== undefined) config.activeEnv = value;
      continue;
    }
    if (section === 'keystore' && key === 'File' && value !== undefined) config.keystorePath = value;
    if (section === 'envs') {
      if (dash !== undefined) config.envs.push({ alias: '' });
      const env = config.envs.at(-1);
      if (env !== undefined && key === 'alias' && value !== undefined) env.alias = value;
      if (env !== undefined && key === 'rpc' && value !== undefined) env.rpc = value;
    }
  }
  return config;
}

function scalar(raw: string): string | undefined {
  const text = raw.replace(/\s+#.*$/, '');
  if (text === '' || text === '~' || text === 'null') return undefined;
  const quoted = /^"(.*)"$|^'(.*)'$/.exec(text);
  return quoted ? (quoted[1] ?? quoted[2]) : text;
}
