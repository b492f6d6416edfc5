/**
 * Terminal text layout for the plan: word wrapping to a fixed width with a hanging indent, and ANSI styles
 * that are no-ops when colour is off. Pure functions.
 */

const ANSI = /\x1b\[[0-9;]*m/g;

/** The number of terminal columns `text` takes: its length without ANSI escape sequences. */
export function visibleLength(text: string): number {
  return text.replace(ANSI, '').length;
}

/** Whether `text` contains an ANSI escape sequence. */
export function hasAnsi(text: string): boolean {
  return /\x1b\[/.test(text);
}

/**
 * Wraps `text` into lines of at most `width` columns. The first line starts with `first`, every further
 * line with `rest` (a hanging indent). Words are split at spaces; a word longer than a whole line is cut, so
 * no line is ever wider than `width`. Styled words count by their visible length.
 */
export function wrap(text: string, width: number, first: string = '', rest: string = ' '.repeat(visibleLength(first))): string[] {
  const lines: string[] = [];
  let line = first;
  let empty = true;
  const room = (prefix: string) => Math.max(1, width - visibleLength(prefix));
  for (let word of text.split(' ').filter((w) => w !== '')) {
    if (!empty && visibleLength(line) + 1 + visibleLength(word) > width) {
      lines.push(line);
      line = rest;
      empty = true;
    }
    // A word wider than a whole line (a long URL) is cut; styled words are never that long.
    while (empty && visibleLength(line) + visibleLength(word) > width && !hasAnsi(word)) {
      const cut = room(line);
      lines.push(line + word.slice(0, cut));
      word = word.slice(cut);
      line = rest;
    }
    line = empty ? line + word : `${line} ${word}`;
    empty = false;
  }
  lines.push(line);
  return lines.map((l) => l.replace(/\s+$/, ''));
}

/** Text styles for the terminal; each returns its input unchanged when colour is off. */
export interface TextStyle {
  readonly bold: (text: string) => string;
  readonly dim: (text: string) => string;
  readonly cyan: (text: string) => string;
  readonly green: (text: string) => string;
  readonly yellow: (text: string) => string;
  readonly magenta: (text: string) => string;
}

/** ANSI styles when `color` is true, identity functions otherwise. */
export function textStyle(color: boolean): TextStyle {
  const sgr = (open: number, close: number) => (text: string) => (color && text !== '' ? `\x1b[${open}m${text}\x1b[${close}m` : text);
  return {
    bold: sgr(1, 22),
    dim: sgr(2, 22),
    cyan: sgr(36, 39),
    green: sgr(32, 39),
    yellow: sgr(33, 39),
    magenta: sgr(35, 39),
  };
}

/** Options that decide whether the terminal output is coloured. */
export interface ColorOptions {
  /** Whether stdout is a terminal. */
  readonly isTTY: boolean;
  /** The environment; `NO_COLOR` (non-empty) and `TERM=dumb` turn colour off. */
  readonly env: Readonly<Record<string, string | undefined>>;
  /**
   * `--color` forces colour on, `--no-color` off.
   * @default 'auto' - colour only on a terminal, unless NO_COLOR is set
   */
  readonly mode?: 'auto' | 'always' | 'never';
}

/**
 * Whether to colour the output: only on a terminal, never when `NO_COLOR` is set or `TERM` is `dumb`,
 * unless forced either way.
 *
 * @see https://no-color.org/
 */
export function useColor(options: ColorOptions): boolean {
  const mode = options.mode ?? 'auto';
  if (mode !== 'auto') return mode === 'always';
  const noColor = options.env.NO_COLOR;
  return options.isTTY && (noColor === undefined || noColor === '') && options.env.TERM !== 'dumb';
}
