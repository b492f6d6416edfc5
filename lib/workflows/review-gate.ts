// Entry point of the review workflow's last step (node --require tsx/cjs lib/workflows/review-gate.ts): the gate.
// Reads the steps' results from the environment the workflow sets (lib/workflows/pr-review.ts) and exits 1 on drift,
// on a diff that did not run, and on risky changes without the acknowledgement label; 0 otherwise. The rule is
// `gateVerdict`, the one the review comment reports, so the comment and the check never disagree.
import { gateVerdict } from './review-comment';

const verdict = gateVerdict({
  install: process.env.INSTALL_OUTCOME ?? '',
  drift: process.env.DRIFT_OUTCOME ?? '',
  diffExit: process.env.DIFF_EXIT ?? '',
  riskyAcknowledged: process.env.RISKY_ACKNOWLEDGED === 'true',
});
// `::error::` is a workflow command both runners turn into an annotation (forgejo/runner act/runner/command.go).
for (const line of verdict.errors) process.stdout.write(`::error::${line}\n`);
for (const line of verdict.notes) process.stdout.write(`${line}\n`);
process.exitCode = verdict.passes ? 0 : 1;
