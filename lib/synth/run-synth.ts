import { HomelabConfig } from '../config/homelab-config';
import { ConfigError } from '../shared/errors';
import { synthesizeHomelab } from './synthesize-homelab';
import { OutputValidationError } from '../validation/output-problem';
import { diffTrees, formatDiff, isEmptyDiff } from '../output/diff-tree';
import { OutputTree, readTree, writeTree } from '../output/output-tree';

/** What a synthesis command did: its exit code and what it printed. */
export interface SynthResult {
  readonly exitCode: number;
  readonly stdout: string;
  readonly stderr: string;
}

const USAGE = 'Usage: synth [--config <file.ts>] [--out <dir>] [--check]';

/**
 * Synthesizes `config` into `--out <dir>` (default `dist`), or with `--check` compares a fresh synthesis
 * with that folder (exit 1 with a summary when they differ). On an invalid config or unsafe output it
 * reports every problem (exit 1) and writes nothing: the previous output is replaced only after everything
 * rendered and validated. Exit 2 on a usage error. Never exits the process itself (tests call it directly).
 */
export function synthesizeToDisk(config: HomelabConfig, argv: readonly string[], env: { cliOutdir?: string } = {}): SynthResult {
  let outdir = 'dist';
  let check = false;
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === '--out' && argv[i + 1]) outdir = argv[++i];
    else if (argv[i] === '--check') check = true;
    else return { exitCode: 2, stdout: '', stderr: `unknown argument '${argv[i]}'. ${USAGE}\n` };
  }
  let tree: OutputTree;
  try {
    tree = synthesizeHomelab(config).tree;
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
  writeTree(tree, outdir);
  // Under `cdk8s synth`, the CLI lists the manifests of its own output folder (CDK8S_OUTDIR, which it
  // deletes first); give it a copy there. dist/ itself is never the CLI's folder.
  if (env.cliOutdir && env.cliOutdir !== outdir) writeTree(tree, env.cliOutdir);
  return { exitCode: 0, stdout: `Synthesized ${tree.size} files into ${outdir}/\n`, stderr: '' };
}

/** The app's entry: `synthesizeToDisk` with the process's arguments, output and exit code. */
export function runSynth(config: HomelabConfig, argv: readonly string[]): void {
  const result = synthesizeToDisk(config, argv, { cliOutdir: process.env.CDK8S_OUTDIR });
  process.stdout.write(result.stdout);
  process.stderr.write(result.stderr);
  process.exitCode = result.exitCode;
}
