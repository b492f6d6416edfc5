// Entry point of the review workflow's comment step (node --require tsx/cjs lib/workflows/post-review-comment.ts
// --platform <github|forgejo> --dir <folder the steps wrote into>). Reads the steps' results from the environment the
// workflow sets (lib/workflows/pr-review.ts), composes the comment and creates or edits it. Exit 0 when the comment
// is written (or, for a pull request from a fork, printed: its token cannot write), 1 when it could not be, 2 on a
// wrong command line. The gate is a later step: this one fails only when the comment cannot be written.
import { parseArgs } from 'util';
import { Platform, PLATFORMS } from './pr-review';
import { CommentApiError, readStepOutputs, reviewCommentBody, upsertReviewComment } from './review-comment';

const USAGE = 'Usage: post-review-comment --platform <github|forgejo> --dir <review folder>';

async function main(argv: string[], env: NodeJS.ProcessEnv): Promise<number> {
  let values;
  try {
    ({ values } = parseArgs({ args: argv, options: { platform: { type: 'string' }, dir: { type: 'string' } }, strict: true }));
  } catch (e) {
    process.stderr.write(`post-review-comment: ${e instanceof Error ? e.message : String(e)}\n${USAGE}\n`);
    return 2;
  }
  if (!PLATFORMS.includes(values.platform as Platform) || values.dir === undefined) {
    process.stderr.write(`post-review-comment: --platform must be one of ${PLATFORMS.join(', ')} and --dir is required.\n${USAGE}\n`);
    return 2;
  }
  const body = reviewCommentBody({
    drift: env.DRIFT_OUTCOME ?? '',
    plan: env.PLAN_OUTCOME ?? '',
    coverageExit: env.COVERAGE_EXIT ?? '',
    diffExit: env.DIFF_EXIT ?? '',
    riskyAcknowledged: env.RISKY_ACKNOWLEDGED === 'true',
  }, readStepOutputs(values.dir));

  const missing = ['FORGE_API_URL', 'FORGE_TOKEN', 'REPOSITORY', 'PR_NUMBER'].filter((name) => (env[name] ?? '') === '');
  if (missing.length > 0) {
    process.stderr.write(`post-review-comment: ${missing.join(', ')} not set; the workflow passes them from the github context and secrets.GITHUB_TOKEN.\n`);
    return 1;
  }
  if ((env.HEAD_REPOSITORY ?? '') !== '' && env.HEAD_REPOSITORY !== env.REPOSITORY) {
    // Both platforms give a pull request from a fork a read-only token: the review goes to the log instead.
    process.stdout.write(`Not posted: the pull request comes from ${env.HEAD_REPOSITORY}, whose token cannot comment. The review:\n\n${body}`);
    return 0;
  }
  try {
    const result = await upsertReviewComment({
      platform: values.platform as Platform, apiUrl: env.FORGE_API_URL ?? '', token: env.FORGE_TOKEN ?? '',
      repository: env.REPOSITORY ?? '', pullRequest: Number(env.PR_NUMBER),
    }, body);
    process.stdout.write(`${result.action === 'created' ? 'Created' : 'Edited'} the review comment ${result.id} on pull request #${env.PR_NUMBER}.\n`);
    return 0;
  } catch (e) {
    if (!(e instanceof CommentApiError)) throw e;
    process.stderr.write(`post-review-comment: ${e.message}\n`);
    return 1;
  }
}

main(process.argv.slice(2), process.env).then((code) => { process.exitCode = code; });
