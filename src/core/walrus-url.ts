import type { RepositoryLocator } from '../ports/ledger.ts';
import { UsageError } from './errors.ts';

/**
 * Repository URLs, the two forms a user writes after `git clone`:
 *   walrus://<repository object id>      e.g. walrus://0x5f…e1
 *   walrus://<owner address>/<name>      e.g. walrus://0x2a…9c/myapp
 * Addresses and ids are Sui 32-byte values; short forms (`0x2`) are padded as Sui does.
 */

const SCHEME = 'walrus://';
const HEX_ID = /^0x[0-9a-fA-F]{1,64}$/;
/** Repository names: what is safe in a URL path segment and a directory name. */
const NAME = /^[A-Za-z0-9_][A-Za-z0-9._-]{0,99}$/;

/** Pads a 0x-prefixed hex id to the canonical 64 lowercase hex digits. */
export function normalizeSuiId(value: string): string {
  if (!HEX_ID.test(value)) throw new UsageError(`'${value}' is not a Sui address or object id (expected 0x followed by up to 64 hex digits)`, { value });
  return `0x${value.slice(2).toLowerCase().padStart(64, '0')}`;
}

/** Whether `name` is a valid repository name. */
export function isRepositoryName(name: string): boolean {
  return NAME.test(name) && !name.endsWith('.git');
}

/** Throws a UsageError naming the rule when `name` is not a valid repository name. */
export function checkRepositoryName(name: string): string {
  if (!isRepositoryName(name)) {
    throw new UsageError(`'${name}' is not a valid repository name: use 1-100 letters, digits, '.', '_' or '-', not starting with '.' or '-' and not ending in '.git'`, { name });
  }
  return name;
}

/** Parses a walrus:// URL into a locator; a malformed URL throws a UsageError that shows both valid forms. */
export function parseWalrusUrl(url: string): RepositoryLocator {
  const malformed = (why: string) =>
    new UsageError(`malformed repository URL '${url}': ${why} (expected walrus://<repository id> or walrus://<owner address>/<name>)`, { url });
  if (!url.startsWith(SCHEME)) throw malformed('it does not start with walrus://');
  const path = url.slice(SCHEME.length).replace(/\/+$/, '');
  const parts = path.split('/');
  if (parts.length === 1 && parts[0] !== '') {
    if (!HEX_ID.test(parts[0])) throw malformed(`'${parts[0]}' is not an object id`);
    return { id: normalizeSuiId(parts[0]) };
  }
  if (parts.length === 2) {
    const [owner, rawName] = parts;
    if (!HEX_ID.test(owner)) throw malformed(`'${owner}' is not an owner address`);
    const name = rawName.endsWith('.git') ? rawName.slice(0, -4) : rawName;
    if (!isRepositoryName(name)) throw malformed(`'${rawName}' is not a valid repository name`);
    return { owner: normalizeSuiId(owner), name };
  }
  throw malformed('wrong number of path segments');
}

/** Formats a locator as a walrus:// URL (the canonical spelling of what parseWalrusUrl accepts). */
export function formatWalrusUrl(locator: RepositoryLocator): string {
  if ('id' in locator) return `${SCHEME}${normalizeSuiId(locator.id)}`;
  return `${SCHEME}${normalizeSuiId(locator.owner)}/${checkRepositoryName(locator.name)}`;
}

/** Whether a string looks like a walrus:// URL (as opposed to a git remote name). */
export function isWalrusUrl(value: string): boolean {
  return value.startsWith(SCHEME);
}
