/**
 * Who may read a private repository (docs/architecture.md, Private repositories (Seal)), as the contract's
 * `seal_approve` decides it: the owner, a writer or a reader. Checked locally first so a refused user gets one clear
 * line and no key server is asked; the key servers decide all the same.
 */
import { WalrusGitError } from './errors.ts';

export interface Membership {
  id: string;
  name: string;
  owner: string;
  writers: readonly string[];
  readers: readonly string[];
}

export function canRead(repository: Membership, address: string): boolean {
  const who = address.toLowerCase();
  return [repository.owner, ...repository.writers, ...repository.readers].some((member) => member.toLowerCase() === who);
}

/** The signer may not read a private repository: names the repository, its owner and the command that fixes it. */
export class NotReaderError extends WalrusGitError {
  constructor(repository: { id: string; name: string; owner: string }, address: string) {
    super(
      'NOT_A_READER',
      `repository '${repository.name}' (${repository.id}) is private and ${address} is not one of its readers: ` +
        `ask its owner ${repository.owner} to run \`git walrus readers add walrus://${repository.id} ${address}\``,
      { repository: repository.id, owner: repository.owner, address },
    );
  }
}

/**
 * The signer may not lease a private repository it cannot read: its provider would get the repository's keys under
 * the lease. Names the repository, its owner and what to ask the owner for.
 */
export class CannotLeaseError extends WalrusGitError {
  constructor(repository: { id: string; name: string; owner: string }, address: string) {
    super(
      'CANNOT_LEASE_PRIVATE',
      `repository '${repository.name}' (${repository.id}) is private and belongs to ${repository.owner}; ${address} cannot read it, so it cannot lease it: ` +
        `ask its owner to run \`git walrus readers add walrus://${repository.id} ${address}\``,
      { repository: repository.id, owner: repository.owner, address },
    );
  }
}
