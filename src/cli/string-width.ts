/**
 * The width of a line of help text in terminal columns: what yargs (cliui, wrap-ansi) measures `git walrus` help
 * with, in the build. scripts/build.ts puts this in place of the string-width package, whose first import costs
 * ~25 ms (an Intl.Segmenter, Unicode emoji and East Asian width tables) in every `git walrus` command: yargs loads it
 * whether or not it renders help. The help is our own text, ASCII but for yargs' quotes, so columns are code points
 * once colour codes are stripped.
 */
const COLOUR = /\u001b\[[0-9;]*m/g;

export default function stringWidth(text: string): number {
  let width = 0;
  for (const _ of text.replace(COLOUR, '')) width++;
  return width;
}
