/** The contract's ref name rule (`repository::is_valid_ref_name`), apart so a push checks it without the model. Pure. */

/** `repository::MAX_REF_NAME_LENGTH`. */
export const MAX_REF_NAME_LENGTH = 255;

const utf8 = new TextEncoder();
const FORBIDDEN_REF_BYTES = new Set([0x7e, 0x5e, 0x3a, 0x3f, 0x2a, 0x5b, 0x5c]); // ~ ^ : ? * [ \
const LOCK_SUFFIX = utf8.encode('.lock');

function endsWithLock(b: Uint8Array, end: number): boolean {
  if (end < LOCK_SUFFIX.length) return false;
  return LOCK_SUFFIX.every((c, i) => b[end - LOCK_SUFFIX.length + i] === c);
}

/** `isValidRefName`'s rule in words, for the errors that refuse a name. */
export const REF_NAME_RULE = 'the contract takes printable ASCII only: refs/ then at most 255 bytes, no spaces and none of ~ ^ : ? * [ \\, ' +
  "no '..', '//', '@{' or '/.', no part ending in .lock, not ending in / or .";

/**
 * Ref names: `refs/` then at most 255 bytes in all of printable ASCII without `~^:?*[\`, no `..`, `//`, `@{` or
 * `/.`, no component ending in `.lock`, not ending in `/` or `.` (git check-ref-format, restricted to refs/).
 */
export function isValidRefName(name: string): boolean {
  const b = utf8.encode(name);
  const n = b.length;
  if (n < 6 || n > MAX_REF_NAME_LENGTH) return false;
  if (!utf8.encode('refs/').every((c, i) => b[i] === c)) return false;
  for (let i = 0; i < n; i++) {
    const c = b[i]!;
    if (c < 0x21 || c > 0x7e || FORBIDDEN_REF_BYTES.has(c)) return false;
    if (i > 0) {
      const p = b[i - 1]!;
      if ((p === 0x2e && c === 0x2e) || (p === 0x2f && c === 0x2f) || (p === 0x40 && c === 0x7b) || (p === 0x2f && c === 0x2e)) return false;
    }
    if (c === 0x2f && endsWithLock(b, i)) return false;
  }
  const last = b[n - 1];
  return last !== 0x2f && last !== 0x2e && !endsWithLock(b, n);
}
