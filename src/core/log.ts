import { visibleLine, visibleText } from './terminal-text.ts';

/** Log levels follow git's `option verbosity`: 0 = quiet (-q), 1 = default, 2+ = verbose (-v, -vv). */
export interface Log {
  readonly verbosity: number;
  /** Always shown unless quiet: what the user should know. */
  info(message: string): void;
  /** Shown at -v and above. */
  debug(message: string): void;
  /** Always shown, even when quiet. */
  warn(message: string): void;
  /** Progress lines that overwrite themselves on a terminal (`\r`), as git's own progress does. */
  progress(message: string, done?: boolean): void;
}

/**
 * A Log that writes to a stream (stderr in production: stdout belongs to the remote-helper protocol). `isTty` is
 * asked when progress is shown: knowing it costs a process its stderr stream, which a run that shows none never needs.
 */
export function streamLog(write: (text: string) => void, verbosity = 1, isTty: () => boolean = () => false): Log {
  return {
    verbosity,
    // Messages may quote a remote's or the chain's words: their control characters are shown, not obeyed.
    info: (m) => { if (verbosity >= 1) write(`${visibleText(m)}\n`); },
    debug: (m) => { if (verbosity >= 2) write(`${visibleText(m)}\n`); },
    warn: (m) => write(`warning: ${visibleText(m)}\n`),
    progress: (m, done = false) => {
      if (verbosity < 1) return;
      if (isTty()) write(`\r${visibleLine(m)}${done ? '\n' : ''}`);
      else if (done) write(`${visibleLine(m)}\n`);
    },
  };
}

/** A Log that drops everything: for tests and library callers that do not want output. */
export const silentLog: Log = streamLog(() => {}, 0);

/** A Log whose level is read at each call: the remote helper learns it from `option verbosity` after it started. */
export function adjustableLog(write: (text: string) => void, verbosity: () => number, isTty: () => boolean = () => false): Log {
  const current = () => streamLog(write, verbosity(), isTty);
  return {
    get verbosity() { return verbosity(); },
    info: (m) => current().info(m),
    debug: (m) => current().debug(m),
    warn: (m) => current().warn(m),
    progress: (m, done) => current().progress(m, done),
  };
}
