/** An environment's values kept out of what is shown or stored: build output, logs. */

/** Shorter values are settings (true, 1, a port), not secrets, and would blank out ordinary words. */
const SECRET_MIN_LENGTH = 8;

/**
 * `text` with each environment value of SECRET_MIN_LENGTH characters or more written as `$NAME`, longest first: what
 * an app's build or test step prints may echo the offer's buildEnv (a registry token), and nothing the controller
 * keeps, the gateway serves or the web shows may carry it.
 */
export function withoutEnvValues(text: string, env: ReadonlyArray<{ name: string; value?: string }>): string {
  const values = env.filter((variable) => (variable.value?.length ?? 0) >= SECRET_MIN_LENGTH).sort((a, b) => b.value!.length - a.value!.length);
  return values.reduce((result, variable) => result.split(variable.value!).join(`$${variable.name}`), text);
}
