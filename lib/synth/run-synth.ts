import { HomelabConfig } from '../config/homelab-config';
import { ConfigError } from '../shared/errors';
import { synthesizeHomelab } from '../homelab-app';
import { OutputValidationError } from '../validation';
import { diffTrees, formatDiff, isEmptyDiff } from './diff-tree';
import { readTree, writeTree } from './output-tree';

/** Parsed command line of the app. */
interface SynthArgs {
  readonly outdir: string;
  readonly check: boolean;
}

function parseArgs(argv: readonly string[]): SynthArgs {
  let outdir = 'dist';
  let check = false;
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === '--out' && argv[i + 1]) outdir = argv[++i];
    else if (argv[i] === '--check') check = true;
    else {
      process.stderr.write(`unknown argument '${argv[i]}'. Usage: synth [--config <file.ts>] [--out <dir>] [--check]\n`);
      process.exit(2);
    }
  }
  return { outdir, check };
}

/**
 * Synthesizes `config` into `--out <dir>` (default `dist`), or with `--check` compares a fresh synthesis
 * with that folder and exits 1 with a summary when they differ. On an invalid config it prints every
 * problem and exits 1; the previous output is replaced only after everything rendered.
 */
export function runSynth(config: HomelabConfig, argv: readonly string[]): void {
  const args = parseArgs(argv);
  let tree;
  try {
    tree = synthesizeHomelab(config).tree;
  } catch (e) {
    const message = e instanceof ConfigError ? e.message
      : e instanceof OutputValidationError ? `The synthesized output is not safe to apply:\n${e.message}`
        : `Synthesis failed:\n${e instanceof Error ? e.message : String(e)}`;
    process.stderr.write(`${message}\n\nNothing was written; ${args.outdir}/ is unchanged.\n`);
    process.exit(1);
  }
  if (args.check) {
    const diff = diffTrees(tree, readTree(args.outdir));
    if (!isEmptyDiff(diff)) {
      process.stderr.write(`${formatDiff(diff, args.outdir)}\n`);
      process.exit(1);
    }
    process.stdout.write(`${args.outdir}/ matches the config (${tree.size} files).\n`);
    return;
  }
  writeTree(tree, args.outdir);
  // Under `cdk8s synth`, the CLI lists the manifests of its own output folder (CDK8S_OUTDIR, which it
  // deletes first); give it a copy there. dist/ itself is never the CLI's folder.
  const cliOut = process.env.CDK8S_OUTDIR;
  if (cliOut && cliOut !== args.outdir) writeTree(tree, cliOut);
  process.stdout.write(`Synthesized ${tree.size} files into ${args.outdir}/\n`);
}
