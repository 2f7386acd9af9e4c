import { memberListCommand } from './member-list.ts';

/** `git walrus writers add|remove|list <remote|url> [address]`: who besides the owner may push. */
export const writersCommand = memberListCommand({
  noun: 'writer',
  describe: 'add, remove or list the addresses allowed to push (the owner always may)',
  lines: (info) => [`${info.owner} (owner)`, ...info.writers],
  add: (ledger, id, address) => ledger.addWriter(id, address),
  remove: (ledger, id, address) => ledger.removeWriter(id, address),
});
