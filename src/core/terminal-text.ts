/**
 * Text from the chain, a git object or a remote, made safe for a terminal: every control character is shown as an
 * escape (`\x1b`, `\u202e`) instead of acting. A terminal obeys ESC and C1 sequences (clear the screen, set the title,
 * write the clipboard with OSC 52, draw an OSC 8 link to another site), CR and LF start a line that can forge output
 * rows, and the bidirectional overrides reorder what is shown. The one sanitizer every printer of such strings uses.
 */

/** C0, DEL, C1, and the bidirectional formatting characters (embeddings, overrides, isolates, marks). */
const CONTROLS = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;
const CONTROLS_BUT_LINES = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;

const escaped = (char: string): string => {
  const code = char.codePointAt(0)!;
  return code <= 0xff ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16).padStart(4, '0')}`;
};

/** One line of output: newlines and tabs are shown as escapes too. */
export function visibleLine(text: string): string {
  return text.replace(CONTROLS, escaped);
}

/** Several lines (a message, an error's text): newlines and tabs kept, every other control character shown. */
export function visibleText(text: string): string {
  return text.replace(CONTROLS_BUT_LINES, escaped);
}
