// Entry point of `npm run workflows` (node --require tsx/cjs lib/workflows/write-workflows.ts): writes the generated
// pull-request workflows and actionlint's settings at the repository root; with --check, writes nothing and exits 1
// when a committed file differs from what would be written (scripts/check-generated.js runs it, so `npm run check`).
import * as fs from 'fs';
import * as path from 'path';
import { generatedWorkflowFiles } from './pr-review';

/** The files that differ from a fresh generation under `root`, one line each; empty when all match. */
export function workflowDrift(root: string): string[] {
  const lines: string[] = [];
  for (const [file, content] of generatedWorkflowFiles()) {
    const at = path.join(root, file);
    if (!fs.existsSync(at)) lines.push(`  + ${file} (generated, not committed)`);
    else if (fs.readFileSync(at, 'utf8') !== content) lines.push(`  ~ ${file} (differs)`);
  }
  return lines;
}

/** Writes every generated file under `root`; returns their paths. */
export function writeWorkflows(root: string): string[] {
  const written: string[] = [];
  for (const [file, content] of generatedWorkflowFiles()) {
    fs.mkdirSync(path.dirname(path.join(root, file)), { recursive: true });
    fs.writeFileSync(path.join(root, file), content, { mode: 0o644 });
    written.push(file);
  }
  return written;
}

if (require.main === module) {
  const args = process.argv.slice(2);
  const root = process.cwd();
  if (args.length > 1 || (args.length === 1 && args[0] !== '--check')) {
    process.stderr.write(`workflows: unexpected argument '${args.find((a) => a !== '--check') ?? args[1]}'.\nUsage: npm run workflows -- [--check]\n`);
    process.exitCode = 2;
  } else if (args[0] === '--check') {
    const drift = workflowDrift(root);
    if (drift.length === 0) {
      process.stdout.write(`workflows match their generator (${generatedWorkflowFiles().size} files).\n`);
    } else {
      process.stdout.write(`The generated workflows differ from lib/workflows/pr-review.ts; run \`npm run workflows\` and commit the result:\n${drift.join('\n')}\n`);
      process.exitCode = 1;
    }
  } else {
    for (const file of writeWorkflows(root)) process.stdout.write(`wrote ${file}\n`);
  }
}
