import * as path from 'path';
import { parseArgs } from 'util';

/** The config file every command loads unless `--config` names another, relative to the working directory. */
export const DEFAULT_CONFIG_FILE = 'homelab.config.ts';

/** How each command is called: the one place the command lines are defined and parsed. */
export const USAGE = {
  synth: 'Usage: npm run synth -- [--config <file.ts>] [--out <dir>] [--check]',
  plan: 'Usage: npm run plan -- [--config <file.ts>] [--color | --no-color] [--scenario <name>]',
  coverage: 'Usage: npm run coverage -- --repo <path to a homelab checkout> [--json] [--config <file.ts>]',
  diff: 'Usage: npm run diff -- [--base <git-ref> | --base-dir <dir>] [--json | --markdown] [--color | --no-color] [--config <file.ts>]',
} as const;

export type CommandName = keyof typeof USAGE;

const ABOUT: Record<CommandName, string> = {
  synth: 'Synthesizes the homelab config into <dir> (default dist/); with --check, compares a fresh synthesis with it instead.',
  plan: 'Prints the Phase-0 steps, the Argo CD waves and the Phase-2 cutover of the homelab config.\n' +
    'With --scenario, prints the timeline of a simulated bring-up instead (lib/simulation; needs lua5.1);\n' +
    '--scenario list names the scenarios.',
  coverage: 'Compares the Applications of the homelab config with a checkout of the homelab repository.\n' +
    'Exit codes: 0 clean, 1 findings, 2 usage error.',
  diff: 'Compares the committed dist/ at the base (default: the merge base of HEAD with main; --base-dir: a folder)\n' +
    'with a fresh synthesis of the config, object by object, grouped by bootstrap step and Argo CD wave, and\n' +
    'classifies each change: breaks apply, destroys data, needs the runbook, moves a pin.\n' +
    'Output: text for a terminal (default; colour only on a terminal without NO_COLOR), --markdown for a\n' +
    'pull-request comment, --json for machines.\n' +
    'Exit codes: 0 nothing changed or nothing risky (pin moves alone are not risky), 3 risky changes\n' +
    '(breaks apply, destroys data, needs the runbook), 2 usage error, 1 failure (config, git).',
};

const CONFIG = { type: 'string' } as const;
const HELP = { type: 'boolean', short: 'h' } as const;
const OPTIONS = {
  synth: { config: CONFIG, help: HELP, out: { type: 'string' }, check: { type: 'boolean' } },
  plan: { config: CONFIG, help: HELP, color: { type: 'boolean' }, 'no-color': { type: 'boolean' }, scenario: { type: 'string' } },
  coverage: { config: CONFIG, help: HELP, repo: { type: 'string' }, json: { type: 'boolean' } },
  diff: {
    config: CONFIG, help: HELP, base: { type: 'string' }, 'base-dir': { type: 'string' }, json: { type: 'boolean' }, markdown: { type: 'boolean' },
    color: { type: 'boolean' }, 'no-color': { type: 'boolean' },
  },
} as const;

/** The options of each command, with defaults applied. Paths are as the caller typed them, or absolute. */
export interface CommandOptions {
  synth: { readonly config: string; readonly out: string; readonly check: boolean };
  /** `auto`: colour only on a terminal without `NO_COLOR`. The last of `--color` and `--no-color` wins. */
  plan: { readonly config: string; readonly color: 'auto' | 'always' | 'never'; readonly scenario?: string };
  coverage: { readonly config: string; readonly repo: string; readonly json: boolean };
  /** `base`: a git ref (default: the merge base with main); `baseDir`: a folder holding the base output instead. */
  diff: {
    readonly config: string; readonly base?: string; readonly baseDir?: string;
    readonly format: 'text' | 'json' | 'markdown'; readonly color: 'auto' | 'always' | 'never';
  };
}

/** A parsed command line: the options to run with, or what to print and the exit code (help: 0, usage error: 2). */
export type CommandLine<C extends CommandName> =
  | { readonly kind: 'run'; readonly options: CommandOptions[C] }
  | { readonly kind: 'exit'; readonly exitCode: 0 | 2; readonly stdout: string; readonly stderr: string };

/**
 * Parses `argv` of `command` with Node's `util.parseArgs` in strict mode: an unknown flag, a missing value or a
 * positional argument is a usage error. `env` locates relative paths: under `npm run <command>` the working
 * directory is the project root, so a path the caller typed is taken relative to npm's `INIT_CWD` (the
 * caller's directory); the defaults stay relative to the working directory.
 */
export function parseCommandLine<C extends CommandName>(
  command: C, argv: readonly string[], env: Readonly<Record<string, string | undefined>> = {},
): CommandLine<C> {
  const usage = (problem: string): CommandLine<C> =>
    ({ kind: 'exit', exitCode: 2, stdout: '', stderr: `${command}: ${problem}\n${USAGE[command]}\n` });
  let parsed;
  try {
    parsed = parseArgs({ args: [...argv], options: OPTIONS[command], strict: true, allowPositionals: false, tokens: true });
  } catch (e) {
    return usage(usageProblem(e));
  }
  const values = parsed.values as Record<string, string | boolean | undefined>;
  if (values.help) return { kind: 'exit', exitCode: 0, stdout: `${USAGE[command]}\n\n${ABOUT[command]}\n`, stderr: '' };
  for (const [name, value] of Object.entries(values)) {
    if (value === '') return usage(`--${name} needs a value.`);
  }
  if (command === 'coverage' && values.repo === undefined) return usage('missing --repo <path to a homelab checkout>.');
  if (command === 'diff' && values.json && values.markdown) return usage('--json and --markdown exclude each other.');
  if (command === 'diff' && values.base !== undefined && values['base-dir'] !== undefined) return usage('--base and --base-dir exclude each other.');
  const callerDir = env.npm_lifecycle_event === command && env.INIT_CWD ? env.INIT_CWD : undefined;
  const typed = (value: string | boolean | undefined, fallback: string) => (value === undefined ? fallback
    : callerDir === undefined || path.isAbsolute(String(value)) ? String(value) : path.resolve(callerDir, String(value)));
  const config = typed(values.config, DEFAULT_CONFIG_FILE);
  const options: CommandOptions[CommandName] = command === 'synth'
    ? { config, out: typed(values.out, 'dist'), check: values.check === true }
    : command === 'plan'
      ? { config, color: colorMode(parsed.tokens ?? []), ...(values.scenario === undefined ? {} : { scenario: String(values.scenario) }) }
      : command === 'diff'
        ? {
          config, format: values.json ? 'json' : values.markdown ? 'markdown' : 'text', color: colorMode(parsed.tokens ?? []),
          ...(values.base === undefined ? {} : { base: String(values.base) }),
          ...(values['base-dir'] === undefined ? {} : { baseDir: typed(values['base-dir'], '') }),
        }
        : { config, repo: typed(values.repo, ''), json: values.json === true };
  return { kind: 'run', options: options as CommandOptions[C] };
}

/** The last of `--color` and `--no-color`, or `auto`. */
function colorMode(tokens: readonly { kind: string; name?: string }[]): 'auto' | 'always' | 'never' {
  const last = tokens.filter((t) => t.kind === 'option' && (t.name === 'color' || t.name === 'no-color')).pop();
  return last === undefined ? 'auto' : last.name === 'color' ? 'always' : 'never';
}

/** One sentence for a `parseArgs` error, without its advice about `--` (the commands take no positionals). */
function usageProblem(e: unknown): string {
  const message = e instanceof Error ? e.message : String(e);
  const quoted = /'([^' ]+)/.exec(message)?.[1] ?? '';
  switch ((e as { code?: string }).code) {
    case 'ERR_PARSE_ARGS_UNKNOWN_OPTION':
      return `unknown option '${quoted}'.`;
    case 'ERR_PARSE_ARGS_UNEXPECTED_POSITIONAL':
      return `unexpected argument '${quoted}'.`;
    case 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE':
      // "Option '--out <value>' argument missing", "... is ambiguous" (the next word is an option), or
      // "Option '--check' does not take an argument" (--check=yes)
      return /does not take/.test(message) ? `${quoted} takes no value.` : `${quoted} needs a value.`;
    default:
      return message.split('\n')[0];
  }
}
