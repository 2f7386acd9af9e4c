/**
 * SUI amounts as people write them and as the chain counts them: MIST, an integer (1 SUI = 10^9 MIST). Parsing and
 * printing are exact decimal string work on bigint, never floating point, so what a user types is what the chain
 * receives, to the last MIST.
 */
import { UsageError } from './errors.ts';

export const MIST_PER_SUI = 1_000_000_000n;
const DECIMALS = 9;
/** Amounts are u64 on chain. */
const MAX_MIST = 2n ** 64n - 1n;

/**
 * `1`, `1.5`, `0.000000001 SUI`, `1.5sui`, `250 MIST` → MIST. The unit defaults to SUI; SUI takes at most 9
 * decimals, MIST none. Throws UsageError naming `what` and the accepted forms.
 */
export function parseSuiAmount(text: string, what = 'amount'): bigint {
  const match = /^\s*(\d+)(?:\.(\d+))?\s*(sui|mist)?\s*$/i.exec(text);
  const unit = match?.[3]?.toLowerCase() ?? 'sui';
  if (!match || (unit === 'mist' && match[2] !== undefined) || (match[2] !== undefined && match[2].length > DECIMALS)) {
    throw new UsageError(`${what} '${text}' is not an amount: write SUI with at most ${DECIMALS} decimals (e.g. 1.5 or 1.5SUI) or whole MIST (e.g. 250MIST)`, { text });
  }
  const mist = unit === 'mist' ? BigInt(match[1]!) : BigInt(match[1]!) * MIST_PER_SUI + BigInt((match[2] ?? '').padEnd(DECIMALS, '0'));
  if (mist > MAX_MIST) throw new UsageError(`${what} '${text}' is more than the chain counts: at most ${formatSui(MAX_MIST)} (${MAX_MIST} MIST, a u64)`, { text });
  return mist;
}

/** MIST → `1.5 SUI`, `0 SUI`, `0.000000001 SUI`: exact, no trailing zeros. */
export function formatSui(mist: bigint): string {
  const sign = mist < 0n ? '-' : '';
  const abs = mist < 0n ? -mist : mist;
  const whole = abs / MIST_PER_SUI;
  const fraction = (abs % MIST_PER_SUI).toString().padStart(DECIMALS, '0').replace(/0+$/, '');
  return `${sign}${whole}${fraction ? `.${fraction}` : ''} SUI`;
}

/** A price per millisecond in MIST, with what it makes per hour: `2 MIST/ms (0.0072 SUI/hour)`. */
export function formatPrice(mistPerMs: bigint): string {
  return `${mistPerMs} MIST/ms (${formatSui(mistPerMs * 3_600_000n).replace(' SUI', ' SUI/hour')})`;
}
