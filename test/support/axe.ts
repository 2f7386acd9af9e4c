/**
 * axe-core run in a page the browser tests drive: evaluated over the DevTools protocol, so the page's CSP (no inline
 * script) stays as it is. Every finding counts, whatever its impact (minor and moderate too).
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { Page } from 'playwright-core';

/** What axe-core reports, as far as these checks read it. */
interface AxeFinding { id: string; impact: string | null; help: string; nodes: Array<{ target: string[] }> }

const AXE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

/** axe-core's findings on the page `view` shows, one line each, named `label`. */
export async function axeFindings(view: Page, label: string): Promise<string[]> {
  await view.evaluate(AXE);
  const violations = await view.evaluate(async () => {
    const run = (globalThis as unknown as { axe: { run(context: unknown, options: unknown): Promise<{ violations: AxeFinding[] }> } }).axe;
    return (await run.run((globalThis as unknown as { document: unknown }).document, { resultTypes: ['violations'] })).violations;
  });
  return violations.map((v) => `${label}: ${v.id} (${v.impact}) ${v.help}: ${v.nodes.slice(0, 3).map((n) => n.target.join(' ')).join(', ')}`);
}
