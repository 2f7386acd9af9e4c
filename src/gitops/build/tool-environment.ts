/**
 * What reaches npm from the caller's environment beside PATH: a machine behind a proxy with its own CA installs only
 * with these. They decide where packages come from, not what the lockfile's integrity lets in, so they are not part
 * of the build key.
 */
export const PASSED_THROUGH = ['NODE_EXTRA_CA_CERTS', 'HTTPS_PROXY', 'HTTP_PROXY', 'NO_PROXY', 'https_proxy', 'http_proxy', 'no_proxy'] as const;

/** The PASSED_THROUGH variables `env` sets. */
export function toolEnvironment(env: Readonly<Record<string, string | undefined>>): Record<string, string> {
  return Object.fromEntries(PASSED_THROUGH.flatMap((name) => (env[name] === undefined ? [] : [[name, env[name]]])));
}
