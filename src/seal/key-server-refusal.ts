/**
 * What a Seal key server's refusal means for the user. A key server answers `{"error": <name>, "message": …}`
 * (MystenLabs/seal `crates/key-server/src/errors.rs`); @mysten/seal keeps only the name, as an error class, so the key
 * service records the bodies and this turns the one the SDK settled on into the line the user can act on. A `NoAccess`
 * carries the failed dry run of our `seal_approve` (or, for the provider of a lease, `lease_access::seal_approve_lease`),
 * whose abort constant says why: not a reader, a key sealed outside the repository, a repository of another package
 * version; the lease closed, exhausted, on another repository, or not the signer's to serve.
 */
import {
  ExpiredSessionKeyError, InvalidPackageError, InvalidParameterError, InvalidPTBError, InvalidUserSignatureError, NoAccessError,
} from '@mysten/seal';
import { normalizeSuiAddress } from '@mysten/sui/utils';
import { abortName } from '../contract/abort-codes.ts';
import { WalrusGitError } from '../core/errors.ts';
import { NotReaderError } from '../core/read-access.ts';
import { leaseAccessAbortName } from '../contract/lease-access-model.ts';
import { leaseSecretsAbortName } from '../contract/lease-secrets-model.ts';
import { LeaseSecretsRefusedError } from '../core/lease-secrets.ts';
import type { LeaseGrant, RepositoryName } from '../ports/key-service.ts';

/** A key server's error body. */
export interface KeyServerAnswer {
  error: string;
  message: string;
}

/** Whose keys a request asks for: a repository's packs, or (`secretsOf`: the lease id) the secrets of a lease of it. */
export interface KeysOf {
  repository: RepositoryName;
  secretsOf?: string;
}

/** What cannot be decrypted, in the user's terms: the repository, or the lease's secrets. */
export function describeKeysOf({ repository, secretsOf }: KeysOf): string {
  return secretsOf === undefined ? `repository '${repository.name}' (${repository.id})` : `the secrets of lease ${secretsOf}`;
}

/**
 * The key servers refused a key request for a reason the user (or the repository's owner) can act on.
 * What to do: the reason says who acts: the repository's owner (a reader to add), the tenant (a lease to open or fund), or this machine (its clock, its network's package).
 */
export class KeyServerRefusalError extends WalrusGitError {
  constructor(code: string, what: KeysOf, reason: string, data: Record<string, unknown> = {}, retryable = false) {
    super(code, `cannot decrypt ${what.secretsOf === undefined ? 'the packs of ' : ''}${describeKeysOf(what)}: ${reason}`, { repository: what.repository.id, ...data }, { retryable });
  }
}

/**
 * The abort of a dry run as Sui's `ExecutionError` prints it:
 * `MoveAbort(MoveLocation { module: ModuleId { address: …, name: Identifier("m") }, …, function_name: Some("f") }, code)`.
 */
const MOVE_ABORT = /MoveAbort\(MoveLocation \{ module: ModuleId \{ address: (?:0x)?([0-9a-fA-F]+), name: Identifier\("(\w+)"\) \}.*?function_name: (?:Some\("(\w+)"\)|None) \}, (\d+)\)/;

export function parseMoveAbort(message: string): { address: string; module: string; functionName: string | null; code: number } | null {
  const match = MOVE_ABORT.exec(message);
  if (match === null) return null;
  return { address: normalizeSuiAddress(match[1]!), module: match[2]!, functionName: match[3] ?? null, code: Number(match[4]) };
}

/**
 * The error to report for `error` (what @mysten/seal threw for a key request, after the session renewal the service
 * does itself) given the bodies the key servers answered; null when it is no refusal this module explains.
 */
export function refusalError(
  error: unknown, answers: readonly KeyServerAnswer[], repository: RepositoryName, packageId: string, signer: string, lease?: LeaseGrant, secretsOf?: string,
): WalrusGitError | null {
  const answer = (name: string) => answers.find((a) => a.error === name);
  const what: KeysOf = secretsOf === undefined ? { repository } : { repository, secretsOf };
  if (secretsOf !== undefined && error instanceof NoAccessError) {
    // The keys of a lease's secrets: `lease_secrets` says why, in its own words.
    const denied = answer('NoAccess');
    const abort = denied ? parseMoveAbort(denied.message) : null;
    const name = abort !== null && abort.address === normalizeSuiAddress(packageId) && abort.module === 'lease_secrets' ? leaseSecretsAbortName(abort.code) : undefined;
    if (name !== undefined) return new LeaseSecretsRefusedError(`the keys of lease ${secretsOf}'s secrets for ${signer}`, name, { lease: secretsOf, address: signer });
  }
  if (lease !== undefined && error instanceof NoAccessError) {
    const denied = answer('NoAccess');
    const abort = denied ? parseMoveAbort(denied.message) : null;
    const ours = abort !== null && abort.address === normalizeSuiAddress(packageId) && abort.module === 'lease_access';
    const refused = leaseRefusal(ours ? leaseAccessAbortName(abort.code) : undefined, what, signer, lease.lease);
    if (refused !== null) return refused;
  }
  if (error instanceof ExpiredSessionKeyError) {
    // A session signed a moment ago: only clocks apart by more than its lifetime (or set ahead of theirs) do that.
    return new KeyServerRefusalError('KEY_SERVER_CLOCK', what, 'the Seal key servers found a session key signed just now expired or not yet valid (InvalidCertificate): this machine\'s clock and theirs differ; set the clock right (NTP) and retry');
  }
  if (error instanceof NoAccessError) {
    const denied = answer('NoAccess');
    const abort = denied ? parseMoveAbort(denied.message) : null;
    const ours = abort !== null && abort.address === normalizeSuiAddress(packageId) && abort.module === 'repository';
    switch (ours ? abortName(abort.code) : undefined) {
      case 'ENoAccess':
        return new NotReaderError(repository, signer);
      case 'EWrongKeyId':
        return new KeyServerRefusalError('SEALED_KEY_OUTSIDE_REPOSITORY', what,
          'a pack\'s data key is sealed under an id outside this repository, so the key servers give it to no one (seal_approve aborted with EWrongKeyId): ' +
          `a faulty client pushed that pack; ask the owner ${repository.owner} to run \`git walrus gc\` from a clone holding its objects, after which clones no longer read it`,
          { abortName: 'EWrongKeyId' });
      case 'EWrongVersion':
        return new KeyServerRefusalError('PACKAGE_VERSION', what,
          'the repository belongs to another version of the git-walrus package than the seal_approve the key servers ran (EWrongVersion): upgrade git-remote-walrus',
          { abortName: 'EWrongVersion' });
    }
    // No body seen: the contract's usual reason. A body we cannot attribute is passed on in the key servers' words.
    if (denied === undefined) return new NotReaderError(repository, signer);
    return new KeyServerRefusalError('SEAL_ACCESS_DENIED', what, `the Seal key servers denied ${signer} the keys (${denied.message})`, { answer: denied.message });
  }
  if (error instanceof InvalidPackageError) {
    return new KeyServerRefusalError('SEAL_PACKAGE_UNKNOWN', what,
      `the Seal key servers do not know package ${packageId} (InvalidPackage): they serve another network than the repository's; check the network's key servers (GIT_WALRUS_SEAL_KEY_SERVERS) and package id`,
      { packageId });
  }
  if (error instanceof InvalidPTBError && /seal_approve function was not found/.test(answer('InvalidPTB')?.message ?? '')) {
    return new KeyServerRefusalError('SEAL_PACKAGE_MISMATCH', what,
      `package ${packageId} has no repository::seal_approve on the key servers' network (InvalidPTB): the configured package is not the git-walrus package of that network`,
      { packageId });
  }
  if (error instanceof InvalidParameterError && lease !== undefined) {
    const detail = answer('InvalidParameter')?.message;
    // The cap is an owned input, referenced at a version: a transaction of the provider's (a deploy recorded, a URL
    // stated) that used it after the approval was built moved it on. A new approval names the new version.
    if (detail !== undefined && /is not available for consumption/.test(detail)) {
      return new KeyServerRefusalError('SEAL_LEASE_CAP_MOVED', what,
        `the Seal key servers could not run the lease's policy for ${signer}: ProviderCap ${lease.cap} changed version meanwhile (another transaction of the provider used it); ask again`,
        { lease: lease.lease, cap: lease.cap, address: signer }, true);
    }
    return new KeyServerRefusalError('SEAL_LEASE_UNREADABLE', what,
      `the Seal key servers could not run the lease's policy for ${signer} (InvalidParameter${detail ? `: ${detail}` : ''}): ProviderCap ${lease.cap} is not the signer's, or their full node does not know lease ${lease.lease} yet`,
      { lease: lease.lease, cap: lease.cap, address: signer });
  }
  if (error instanceof InvalidParameterError) {
    const detail = answer('InvalidParameter')?.message;
    return new KeyServerRefusalError('SEAL_REPOSITORY_UNREADABLE', what,
      `the Seal key servers could not read repository ${repository.id} on chain (InvalidParameter${detail ? `: ${detail}` : ''}): it was deleted, or their full node has not seen it yet; try again in a moment`,
      {}, true);
  }
  if (error instanceof InvalidUserSignatureError) {
    return new KeyServerRefusalError('SEAL_SIGNATURE_REFUSED', what,
      `the Seal key servers refused the session key's signature by ${signer} (InvalidSignature): they refuse a signature that does not verify, and any signature of an address that has aliases`);
  }
  return null;
}

/** Why the key servers refused the provider of `lease`, in the words the controller and the operator act on. */
function leaseRefusal(abortName: string | undefined, what: KeysOf, signer: string, lease: string): WalrusGitError | null {
  const repository = what.repository;
  const of = `the Seal key servers give ${signer} no keys of ${repository.owner}'s repository under lease ${lease}`;
  const data = { lease, address: signer, owner: repository.owner, abortName };
  switch (abortName) {
    case 'ELeaseClosed':
      return new KeyServerRefusalError('LEASE_CLOSED', what,
        `lease closed: ${of}, which is closed (seal_approve_lease aborted with ELeaseClosed); what was decrypted before stays decrypted, nothing pushed since can be read: the tenant opens a new lease to have it served again`,
        { ...data, reason: 'lease closed' });
    case 'ELeaseExhausted':
      return new KeyServerRefusalError('LEASE_EXHAUSTED', what,
        `lease exhausted: ${of}, whose funds ran out by the chain's clock (seal_approve_lease aborted with ELeaseExhausted): the tenant opens a new lease to have it served again`,
        { ...data, reason: 'lease exhausted' });
    case 'ETenantNotReader':
      return new KeyServerRefusalError('LEASE_TENANT_NOT_READER', what,
        `tenant not a reader: ${of}, whose tenant may not read the repository (not its owner, a writer or a reader; seal_approve_lease aborted with ETenantNotReader): a lease grants nothing its tenant could not read itself; the owner ${repository.owner} adds the tenant as a reader to have it served again`,
        { ...data, reason: 'tenant not a reader' });
    case 'ENotProvider':
      return new KeyServerRefusalError('NOT_LEASE_PROVIDER', what,
        `not the lease's provider: ${of}: ${signer} does not hold the ProviderCap of that lease's provider (seal_approve_lease aborted with ENotProvider); run with the provider's key`,
        { ...data, reason: 'not the provider' });
    case 'EWrongRepository':
      return new KeyServerRefusalError('LEASE_OF_OTHER_REPOSITORY', what,
        `another repository's lease: ${of}: that lease serves another repository (seal_approve_lease aborted with EWrongRepository)`,
        { ...data, reason: 'another repository' });
    case 'EWrongKeyId':
      return new KeyServerRefusalError('SEALED_KEY_OUTSIDE_REPOSITORY', what,
        `a data key is sealed under an id outside this repository, so the key servers give it to no one (seal_approve_lease aborted with EWrongKeyId): ask the owner ${repository.owner} to run \`git walrus gc\``,
        { ...data, reason: 'key outside the repository' });
  }
  return null;
}
