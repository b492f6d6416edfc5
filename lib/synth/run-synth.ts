import { HomelabConfig } from '../config/homelab-config';
import { ConfigError } from '../shared/errors';
import { synthesizeHomelab } from '../homelab-app';
import { writeTree } from './output-tree';

/**
 * Synthesizes `config` into `--out <dir>` (default `dist`) and exits non-zero with a readable list of
 * problems when the config is invalid. The previous output is replaced only after everything rendered.
 */
export function runSynth(config: HomelabConfig, argv: readonly string[]): void {
  const outIndex = argv.indexOf('--out');
  const outdir = outIndex >= 0 ? argv[outIndex + 1] : 'dist';
  try {
    const { tree } = synthesizeHomelab(config);
    writeTree(tree, outdir);
    // Under `cdk8s synth`, the CLI lists the manifests of its own output folder (CDK8S_OUTDIR, which it
    // deletes first); give it a copy there. dist/ itself is never the CLI's folder.
    const cliOut = process.env.CDK8S_OUTDIR;
    if (cliOut && cliOut !== outdir) writeTree(tree, cliOut);
    process.stdout.write(`Synthesized ${tree.size} files into ${outdir}/\n`);
  } catch (e) {
    if (e instanceof ConfigError) {
      process.stderr.write(`${e.message}\n\nNothing was written; ${outdir}/ is unchanged.\n`);
      process.exit(1);
    }
    const message = e instanceof Error ? e.message : String(e);
    process.stderr.write(`Synthesis failed:\n${message}\n\nNothing was written; ${outdir}/ is unchanged.\n`);
    process.exit(1);
  }
}
