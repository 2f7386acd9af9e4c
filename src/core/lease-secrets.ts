/**
 * A tenant's secrets for the app its lease runs (docs/architecture.md, Secrets sealed to a lease): what a name and a
 * value may be, the typed refusals, and the changes `git walrus secrets set|unset` make to the current set. Pure.
 * No message here ever carries a value: a refusal names the secret, its size or the file, never its content.
 */
import { WalrusGitError } from './errors.ts';

/** An environment variable name as POSIX shells and Kubernetes accept it: a letter or `_`, then letters, digits, `_`. */
export const SECRET_NAME_RULE = /^[A-Za-z_][A-Za-z0-9_]*$/;
/** Largest value, in bytes of UTF-8 (32 KiB: a certificate chain or a service account key fits, far under Linux's 128 KiB per variable). */
export const MAX_SECRET_VALUE_BYTES = 32 * 1024;
/** Most secrets one lease holds. */
export const MAX_SECRETS = 100;

/** One secret as the sealed set holds it: its value, the version that last set it and when. */
export interface SecretEntry {
  name: string;
  value: string;
  version: number;
  setAtMs: number;
}

/** What `list` shows of a secret: never its value. */
export type SecretListing = Omit<SecretEntry, 'value'>;

/**
 * A name that is not a valid environment variable name. The text is not repeated: a mistyped argument may be a value
 * (a token pasted without its NAME=), so the error says where it stands instead.
 */
export class InvalidSecretNameError extends WalrusGitError {
  constructor(where: string) {
    super('SECRET_NAME_INVALID', `${where} has no valid secret name: a secret is NAME=value, where NAME is a letter or _, then letters, digits or _ (e.g. DATABASE_URL); nothing was stored`, { where });
  }
}

/** A value over MAX_SECRET_VALUE_BYTES, or a set over MAX_SECRETS. */
export class SecretTooLargeError extends WalrusGitError {
  constructor(what: string) {
    super('SECRET_TOO_LARGE', `${what}; nothing was stored`, {});
  }
}

/**
 * A value holding a NUL byte: the environment hands a process C strings, so no variable can carry one (a binary file
 * passed with --from-file, most likely). The value is not shown.
 */
export class SecretValueHasNulError extends WalrusGitError {
  constructor(name: string) {
    super('SECRET_VALUE_HAS_NUL', `secret ${name} holds a NUL byte, which no environment variable can carry: give binary data encoded (e.g. base64) and decode it in the app; nothing was stored`, { name });
  }
}

/** `--from-file NAME=path` names a file that cannot be read. */
export class SecretFileError extends WalrusGitError {
  constructor(name: string, path: string, reason: string) {
    super('SECRET_FILE_UNREADABLE', `secret ${name}: cannot read ${path} (${reason}); nothing was stored`, { name, path, reason });
  }
}

/** The signer is not the lease's tenant: only the tenant reads or changes its secrets. */
export class NotLeaseTenantError extends WalrusGitError {
  constructor(leaseId: string, signer: string, tenant: string) {
    super('NOT_LEASE_TENANT', `only the tenant of lease ${leaseId} (${tenant}) sets or reads its secrets; ${signer} is not: sign with the tenant's key; nothing was stored`, { leaseId, signer, tenant });
  }
}

/** `unset` names a secret the lease does not hold. */
export class UnknownSecretError extends WalrusGitError {
  constructor(leaseId: string, name: string) {
    super('SECRET_NOT_SET', `lease ${leaseId} holds no secret ${name} (\`git walrus secrets list ${leaseId}\` shows the names); nothing was stored`, { leaseId, name });
  }
}

/** The lease is closed: its secrets no longer change. */
export class LeaseClosedForSecretsError extends WalrusGitError {
  constructor(leaseId: string) {
    super('LEASE_CLOSED', `lease ${leaseId} is closed: its secrets no longer change and its provider gets no keys of them (open a new lease); nothing was stored`, { leaseId });
  }
}

/** A stored set of secrets that does not open: altered, of another lease or version, or not a secrets envelope at all. */
export class SecretsEnvelopeError extends WalrusGitError {
  constructor(blobId: string, reason: string) {
    super('SECRETS_ENVELOPE_INVALID', `the sealed secrets in blob ${blobId} do not open: ${reason}`, { blobId, reason });
  }
}

/** Why `lease_secrets` refused, in words, per abort constant of lease_secrets.move. */
export const LEASE_SECRETS_REASONS: Record<string, string> = {
  ENotTenant: "only the lease's tenant sets its secrets or gets their keys as the tenant: sign with the tenant's key",
  ELeaseClosed: 'the lease is closed: its secrets no longer change and its provider gets no keys of them',
  EVersionNotNext: 'another change of these secrets landed first: run the command again, it starts from the new version',
  EWrongKeyId: "the key id is not one of the lease's secret identities",
  EWrongRepository: "the repository is not the lease's",
  ENotProvider: "the signer does not hold the ProviderCap of the lease's provider",
  ETenantNotReader: "the lease's tenant may no longer read the repository",
  ELeaseExhausted: "the lease's funds ran out by the chain's clock: the tenant tops it up (`git walrus lease top-up`)",
};

/** `lease_secrets` refused a transaction or a key request: `abortName` is the constant. */
export class LeaseSecretsRefusedError extends WalrusGitError {
  readonly abortName: string;
  constructor(what: string, abortName: string, data: Record<string, unknown> = {}) {
    super('LEASE_SECRETS_REFUSED', `${what} refused: ${LEASE_SECRETS_REASONS[abortName] ?? abortName}`, { abortName, ...data });
    this.abortName = abortName;
  }
}

/** Checks a secret's name (an environment variable name); `where` names it in the refusal. */
export function checkSecretName(name: string, where = 'a secret'): void {
  if (!SECRET_NAME_RULE.test(name)) throw new InvalidSecretNameError(where);
}

/** Checks one NAME=value: a valid name, a value within the limit. */
export function checkSecret(name: string, value: string, where = 'a secret'): void {
  checkSecretName(name, where);
  if (value.includes('\0')) throw new SecretValueHasNulError(name);
  const size = Buffer.byteLength(value, 'utf8');
  if (size > MAX_SECRET_VALUE_BYTES) throw new SecretTooLargeError(`secret ${name} is ${size} bytes, over the limit of ${MAX_SECRET_VALUE_BYTES} bytes (32 KiB)`);
}

/** Splits `NAME=value` at its first `=` (the value may hold `=` and be empty); `where` names it in a refusal. */
export function parseAssignment(text: string, where: string): { name: string; value: string } {
  const at = text.indexOf('=');
  if (at < 0) throw new InvalidSecretNameError(where);
  const name = text.slice(0, at);
  const value = text.slice(at + 1);
  checkSecret(name, value, where);
  return { name, value };
}

/**
 * The next set of secrets: `current` with `set` written and `unset` removed, every changed secret stamped with
 * `version` and `nowMs`, the rest kept as they were. Checks every name and value (again), and the count.
 */
export function nextSecrets(current: readonly SecretEntry[], set: ReadonlyMap<string, string>, unset: readonly string[], version: number, nowMs: number): SecretEntry[] {
  unset.forEach((name) => checkSecretName(name));
  for (const [name, value] of set) checkSecret(name, value);
  const out = new Map(current.map((entry) => [entry.name, entry]));
  for (const name of unset) out.delete(name);
  for (const [name, value] of set) out.set(name, { name, value, version, setAtMs: nowMs });
  if (out.size > MAX_SECRETS) throw new SecretTooLargeError(`a lease holds at most ${MAX_SECRETS} secrets; this would make ${out.size}`);
  return [...out.values()].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

/**
 * The app's manifest names build secrets (walrus.buildSecrets) the lease's current version does not hold: the build
 * cannot install without them.
 * What to do: set each missing name with git walrus secrets set <lease> NAME=value (the provider's controller builds
 * the commit again once it sees the new version, without a push), or take it out of walrus.buildSecrets and push.
 */
export class BuildSecretNotSetError extends WalrusGitError {
  constructor(leaseId: string, missing: readonly string[]) {
    const names = missing.join(', ');
    super('BUILD_SECRET_NOT_SET', `the app's package.json walrus.buildSecrets names ${names}, which lease ${leaseId} has not set: run git walrus secrets set ${leaseId} ${missing.map((name) => `${name}=…`).join(' ')}`, { leaseId, missing: [...missing] });
  }
}

/**
 * A rebuild on this machine (`git walrus artifact rebuild`) of a build whose manifest names build secrets, signed by
 * neither the lease's tenant nor the holder of its provider's ProviderCap: nobody else can read them, so nobody else
 * can repeat that build.
 * What to do: run the rebuild with the tenant's key (GIT_WALRUS_KEY), or ask the tenant to run it.
 */
export class BuildSecretsUnreadableError extends WalrusGitError {
  constructor(leaseId: string, names: readonly string[], signer: string, tenant: string) {
    super('BUILD_SECRETS_UNREADABLE', `this build installs with the build secrets ${names.join(', ')} of lease ${leaseId} (its package.json walrus.buildSecrets), which only the lease's tenant ${tenant} and its provider can read; ${signer} is neither: rebuild with the tenant's key`, { leaseId, names: [...names], signer, tenant });
  }
}

/** The secrets of `secrets` that `names` lists, in its order; every name must be set (else BuildSecretNotSetError). */
export function namedSecrets(leaseId: string, secrets: readonly SecretEntry[], names: readonly string[]): SecretEntry[] {
  const byName = new Map(secrets.map((entry) => [entry.name, entry]));
  const missing = names.filter((name) => !byName.has(name));
  if (missing.length > 0) throw new BuildSecretNotSetError(leaseId, missing);
  return names.map((name) => byName.get(name)!);
}

/**
 * The secrets as a file a POSIX shell sources (`set -a; . file`): one `NAME='value'` per secret, a quote in a value
 * written as '\''. What the app's pod reads from its in-memory volume before it starts the app.
 */
export function shellEnvironmentFile(secrets: readonly SecretEntry[]): string {
  return secrets.map(({ name, value }) => `${name}='${value.replaceAll("'", "'\\''")}'\n`).join('');
}
