import { UsageError } from '../core/errors.ts';
import { memberListCommand } from './member-list.ts';

/**
 * `git walrus readers add|remove|list <remote|url> [address]`: who besides the owner and the writers may read a
 * private repository. A reader added later reads every earlier pack too (the key servers derive keys on request);
 * a removed reader gets no key from then on.
 */
export const readersCommand = memberListCommand({
  noun: 'reader',
  describe: 'add, remove or list the addresses allowed to read a private repository (the owner and writers always may)',
  lines: (info) => [`${info.owner} (owner)`, ...info.writers.map((writer) => `${writer} (writer)`), ...info.readers],
  check: (info) => {
    if (!info.private) {
      throw new UsageError(`repository '${info.name}' (${info.id}) is public: anyone may read it, so it has no readers (create a private one with \`git walrus init --private\`)`, { repository: info.id });
    }
  },
  add: (ledger, id, address) => ledger.addReader(id, address),
  remove: (ledger, id, address) => ledger.removeReader(id, address),
});
