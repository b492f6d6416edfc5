import { HomelabConfig } from '../config/homelab-config';
import { ConfigError } from '../shared/errors';
import { synthesizeHomelab } from '../synth/synthesize-homelab';
import { OutputValidationError } from '../validation/output-problem';
import { diffTrees, formatDiff, isEmptyDiff } from '../output/diff-tree';
import { OutputTree, readTree, writeTree } from '../output/output-tree';
import * as fs from 'fs';
import { changeWarnings, reviewTrees } from '../review';
import { lifecycleWarnings, PlannedPin } from '../plan/pins';

/** What a synthesis command did: its exit code and what it printed. */
export interface SynthResult {
  readonly exitCode: number;
  readonly stdout: string;
  readonly stderr: string;
}

/** Where `synthesizeToDisk` writes, and whether it only compares. */
export interface SynthOptions {
  /** The output folder. @default 'dist' */
  readonly outdir?: string;
  /** Compare a fresh synthesis with `outdir` instead of writing it. @default false */
  readonly check?: boolean;
}

/**
 * Synthesizes `config` into `outdir`, or with `check` compares a fresh synthesis with that folder (exit 1 with
 * a summary when they differ). On an invalid config or unsafe output it reports every problem (exit 1) and
 * writes nothing: the previous output is replaced only after everything rendered and validated. Never exits
 * the process itself (tests call it directly).
 */
export function synthesizeToDisk(config: HomelabConfig, options: SynthOptions = {}, env: { cliOutdir?: string } = {}): SynthResult {
  const outdir = options.outdir ?? 'dist';
  const check = options.check ?? false;
  let tree: OutputTree;
  let pins: readonly PlannedPin[];
  try {
    ({ tree, plan: { pins } } = synthesizeHomelab(config));
  } catch (e) {
    const message = e instanceof ConfigError ? e.message
      : e instanceof OutputValidationError ? `The synthesized output is not safe to apply:\n${e.message}`
        : `Synthesis failed:\n${e instanceof Error ? e.message : String(e)}`;
    return { exitCode: 1, stdout: '', stderr: `${message}\n\nNothing was written; ${outdir}/ is unchanged.\n` };
  }
  if (check) {
    const diff = diffTrees(tree, readTree(outdir));
    return isEmptyDiff(diff)
      ? { exitCode: 0, stdout: `${outdir}/ matches the config (${tree.size} files).\n`, stderr: '' }
      : { exitCode: 1, stdout: '', stderr: `${formatDiff(diff, outdir)}\n` };
  }
  // Valid, but dangerous next to what was there: said before the old output is replaced, never silently.
  const warnings = (fs.existsSync(outdir) ? warningsAgainst(readTree(outdir), tree, `${outdir}/`) : '') + unmaintainedPinsWarning(pins);
  writeTree(tree, outdir);
  // Under `cdk8s synth`, the CLI lists the manifests of its own output folder (CDK8S_OUTDIR, which it
  // deletes first); give it a copy there. dist/ itself is never the CLI's folder.
  if (env.cliOutdir && env.cliOutdir !== outdir) writeTree(tree, env.cliOutdir);
  return { exitCode: 0, stdout: `Synthesized ${tree.size} files into ${outdir}/\n`, stderr: warnings };
}

/**
 * The warnings of `changeWarnings` for `tree` against `previous` (the output it replaces, named `where`), as text for
 * stderr; empty when nothing risky changed or there was no previous output.
 */
export function warningsAgainst(previous: OutputTree, tree: OutputTree, where: string): string {
  if (previous.size === 0) return '';
  const lines = changeWarnings(reviewTrees(previous, tree));
  if (lines.length === 0) return '';
  return `Warning: compared with ${where} before it, this output\n${lines.map((l) => `  - ${l}`).join('\n')}\n` +
    'Review it with `npm run diff` before you commit; the runbook and Argo CD apply it as it is.\n';
}

/**
 * The pins past their end of life, retired or archived that the output still deploys (`lifecycleWarnings`), as text for
 * stderr; empty when there are none. Printed on every synthesis, not only when they change: they get no more fixes.
 */
export function unmaintainedPinsWarning(pins: readonly PlannedPin[]): string {
  const lines = lifecycleWarnings(pins);
  if (lines.length === 0) return '';
  return `Warning: this output deploys ${lines.length === 1 ? 'a component' : `${lines.length} components`} that get no more fixes ` +
    `(lib/shared/lifecycle.ts):\n${lines.map((l) => `  - ${l}`).join('\n')}\n`;
}

/**
 * The synth command: `synthesizeToDisk`, and under `cdk8s synth` a copy for the CLI in `CDK8S_OUTDIR` (the
 * CLI lists the manifests of that folder, which it deletes first; dist/ itself is never the CLI's folder).
 */
export function runSynth(config: HomelabConfig, options: SynthOptions): SynthResult {
  return synthesizeToDisk(config, options, { cliOutdir: process.env.CDK8S_OUTDIR });
}
