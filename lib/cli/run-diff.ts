import * as fs from 'fs';
import { HomelabConfig } from '../config/homelab-config';
import { ConfigError } from '../shared/errors';
import { synthesizeHomelab } from '../synth/synthesize-homelab';
import { readTree } from '../output/output-tree';
import { useColor } from '../plan/text-layout';
import {
  defaultBase, GitError, isRisky, readTreeAtRef, renderReviewJson, renderReviewMarkdown, renderReviewText, reviewTrees, ReviewSides,
  shortCommit,
} from '../review';
import { CommandOptions } from './args';

/** Exit codes of `npm run diff`. */
export const DIFF_EXIT = {
  /** Nothing changed, or nothing risky (pin moves alone are not risky). */
  CLEAN: 0,
  /** The config does not synthesize, or git could not read the base. */
  FAILURE: 1,
  /** A wrong command line. */
  USAGE: 2,
  /** Risky changes: something breaks apply, destroys data or needs the runbook. CI asks for an explicit approval. */
  RISKY: 3,
} as const;

/** What `runDiff` needs from its surroundings. */
export interface DiffIo {
  /** The git working directory; `dist/` is read relative to it. */
  readonly cwd: string;
  /** Whether stdout is a terminal. */
  readonly isTTY: boolean;
  /** The environment, for `NO_COLOR` and `TERM`. */
  readonly env: Readonly<Record<string, string | undefined>>;
}

/** The output folder the base side is read from, relative to the git working directory. */
const DIST = 'dist';

/**
 * The `diff` command: reads the base output (`dist/` at a git ref, or a folder), synthesizes `config` in memory
 * (nothing is written) and reports the review in the chosen format. Never throws for a config or git problem.
 */
export function runDiff(config: HomelabConfig, options: CommandOptions['diff'], io: DiffIo): { exitCode: number; stdout: string; stderr: string } {
  const fail = (message: string) => ({ exitCode: DIFF_EXIT.FAILURE, stdout: '', stderr: `diff: ${message}\n` });
  let base: Map<string, string>;
  let sides: ReviewSides;
  if (options.baseDir !== undefined) {
    if (!fs.existsSync(options.baseDir) || !fs.statSync(options.baseDir).isDirectory()) {
      return { exitCode: DIFF_EXIT.USAGE, stdout: '', stderr: `diff: --base-dir '${options.baseDir}' is not a folder.\n` };
    }
    base = readTree(options.baseDir);
    sides = { base: options.baseDir, head: `a fresh synthesis of ${options.config}` };
  } else {
    try {
      const ref = options.base ?? defaultBase(io.cwd);
      base = readTreeAtRef(io.cwd, ref, DIST);
      const label = options.base === undefined ? `the merge base with main (${shortCommit(io.cwd, ref)})` : `${ref} (${shortCommit(io.cwd, ref)})`;
      sides = { base: `${DIST}/ at ${label}`, head: `a fresh synthesis of ${options.config}` };
    } catch (e) {
      if (e instanceof GitError) return fail(e.message);
      throw e;
    }
  }
  let head;
  try {
    head = synthesizeHomelab(config).tree;
  } catch (e) {
    return fail(`the config does not synthesize, so there is nothing to compare.\n${e instanceof ConfigError ? e.message : e instanceof Error ? e.message : String(e)}`);
  }
  const review = reviewTrees(base, head);
  const stdout = options.format === 'json' ? renderReviewJson(review, sides)
    : options.format === 'markdown' ? renderReviewMarkdown(review, sides)
      : renderReviewText(review, sides, { color: useColor({ isTTY: io.isTTY, env: io.env, mode: options.color }) });
  return { exitCode: isRisky(review) ? DIFF_EXIT.RISKY : DIFF_EXIT.CLEAN, stdout, stderr: '' };
}
