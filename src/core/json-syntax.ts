/**
 * What is wrong with text JSON.parse refused, without quoting it. V8's messages may quote the text around the fault,
 * and that text may be a key or a token (a keystore, config.json with an API key): only the place is kept. Pure.
 */
export function jsonSyntaxProblem(error: unknown, text: string): string {
  const message = error instanceof Error ? error.message : '';
  if (/Unexpected end of JSON input/.test(message)) return 'not valid JSON: it ends early (a missing bracket or quote?)';
  const position = /at position (\d+)/.exec(message)?.[1];
  if (position === undefined) return 'not valid JSON (a trailing comma, or a missing quote or bracket?)';
  const before = text.slice(0, Number(position)).split('\n');
  return `not valid JSON at line ${before.length}, column ${before.at(-1)!.length + 1}`;
}
