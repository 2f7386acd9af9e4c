/**
 * The end of a failed step's output that an error message quotes. A test runner prints its summary after the failed
 * assertion's report (node's TAP runner: the stack, then ten lines of counts), so the tail holds enough lines for the
 * report to stay in it whatever the stack's depth; its size is bounded so that a few long lines cannot fill a status.
 */
export const FAILURE_TAIL_LINES = 40;
export const FAILURE_TAIL_CHARS = 4096;

/** The last FAILURE_TAIL_LINES lines of `output` (trimmed), whole lines first dropped from the start to fit FAILURE_TAIL_CHARS. */
export function failureTail(output: string): string {
  const lines = output.trim().split('\n').slice(-FAILURE_TAIL_LINES);
  let size = lines.reduce((sum, line) => sum + line.length + 1, -1);
  while (lines.length > 1 && size > FAILURE_TAIL_CHARS) size -= lines.shift()!.length + 1;
  return size > FAILURE_TAIL_CHARS ? lines[0]!.slice(-FAILURE_TAIL_CHARS) : lines.join('\n');
}
