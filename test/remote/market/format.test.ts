import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { formatProvider, formatProviders } from '../../../src/remote/market/format.ts';
import type { ProviderInfo } from '../../../src/ports/market.ts';

// What a provider registered before the contract refused control characters (or a chain that does not) can hold.
const hostile: ProviderInfo = {
  id: `0x${'a'.repeat(64)}`,
  owner: `0x${'b'.repeat(64)}`,
  stake: 100_000_000_000n,
  pricePerMs: 1n,
  endpoint: 'https://p.example/\u001b]8;;https://evil.example\u0007click\u001b]8;;\u0007',
  attributes: { region: 'eu\n0xFAKEPROVIDER  999 SUI  trusted', '\u001b]52;c;cm0gLXJmIH4K\u0007title': '\u001b[2J\u001b]0;pwned\u0007' },
  activeLeases: 0,
  unbondsAtMs: null,
  completedLeases: 0,
  providerClosedLeases: 0,
  slashed: 0n,
};

test('providers and provider show print a provider\'s endpoint and attributes with control characters visible', () => {
  const table = formatProviders([hostile], { minStake: 1n, unbondingMs: 1000, minLeaseMs: 1000 }, 0);
  const shown = formatProvider(hostile, 0);
  for (const text of [table, shown]) assert.not.match(text, /[\u0000-\u0009\u000b-\u001f\u007f]/);
  assert.is(table.split('\n').length, 4, 'a header, one row, the footer: no forged row');
  assert.match(table, 'https://p.example/\\x1b]8;;https://evil.example\\x07click\\x1b]8;;\\x07');
  assert.match(shown, 'attributes region=eu\\x0a0xFAKEPROVIDER  999 SUI  trusted, \\x1b]52;c;cm0gLXJmIH4K\\x07title=\\x1b[2J\\x1b]0;pwned\\x07');
});

test.run();
