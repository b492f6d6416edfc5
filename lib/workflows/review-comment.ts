import * as fs from 'fs';
import * as path from 'path';
import { Platform, REVIEW_COMMENT_MARKER, RISKY_CHANGE_LABEL } from './pr-review';

/** What the workflow's steps reported, from `steps.<id>.outcome` and `steps.<id>.outputs.exit-code`. */
export interface StepResults {
  /** `success`, `failure`, `skipped` or empty. */
  readonly drift: string;
  readonly plan: string;
  /** The coverage command's exit code (0 clean, 1 findings, 2 not run); empty when the step did not run. */
  readonly coverageExit: string;
  /** The diff command's exit code (0 nothing risky, 3 risky, 1 or 2 failed); empty when the step did not run. */
  readonly diffExit: string;
  /** Whether the pull request carries `RISKY_CHANGE_LABEL`. */
  readonly riskyAcknowledged: boolean;
}

/** What the steps wrote into the review folder; a missing file is an empty string. */
export interface StepOutputs {
  readonly drift: string;
  readonly plan: string;
  readonly coverage: string;
  readonly diff: string;
  readonly diffErrors: string;
}

/** GitHub refuses a comment body over 65536 characters; the review stays below with room for the table. */
export const MAX_COMMENT_LENGTH = 60_000;

/** Reads the files the steps wrote into `dir`. */
export function readStepOutputs(dir: string): StepOutputs {
  const read = (file: string) => (fs.existsSync(path.join(dir, file)) ? fs.readFileSync(path.join(dir, file), 'utf8') : '');
  return { drift: read('drift.txt'), plan: read('plan.txt'), coverage: read('coverage.txt'), diff: read('diff.md'), diffErrors: read('diff.err') };
}

/** What the gate reads: the outcome of `npm ci` (undefined where the step that asks ran only after it succeeded). */
export interface GateInput {
  readonly install?: string;
  readonly drift: string;
  readonly diffExit: string;
  readonly riskyAcknowledged: boolean;
}

/** The gate's verdict: whether the pull request passes, the reasons it does not, and what it noted. */
export interface GateVerdict {
  readonly passes: boolean;
  readonly errors: readonly string[];
  readonly notes: readonly string[];
}

/**
 * The gate of the review: drift fails; the diff must have run (exit 0 or 3); risky changes (exit 3) fail unless the
 * pull request carries `RISKY_CHANGE_LABEL`. Pin moves alone are not risky (the diff exits 0 for them).
 */
export function gateVerdict(input: GateInput): GateVerdict {
  if (input.install !== undefined && input.install !== 'success') {
    return { passes: false, errors: ['npm ci failed; nothing was reviewed.'], notes: [] };
  }
  const errors: string[] = [];
  const notes: string[] = [];
  if (input.drift !== 'success') {
    errors.push('dist/ does not match a fresh synthesis of the config (see the drift check). Run npm run synth and commit dist/.');
  }
  if (input.diffExit === '0') notes.push('The diff finds nothing risky.');
  else if (input.diffExit === '3' && input.riskyAcknowledged) notes.push(`Risky changes, acknowledged by the label ${RISKY_CHANGE_LABEL}.`);
  else if (input.diffExit === '3') errors.push(`Risky changes (see the review comment). Once reviewed, add the label ${RISKY_CHANGE_LABEL} to the pull request.`);
  else errors.push(`The diff did not run (exit '${input.diffExit}'); see the diff step.`);
  return { passes: errors.length === 0, errors, notes };
}

/** A fenced block that no backtick run inside `text` can close early. */
function fenced(text: string, info = 'text'): string {
  const longest = Math.max(2, ...[...text.matchAll(/`+/g)].map((m) => m[0].length));
  const fence = '`'.repeat(longest + 1);
  return `${fence}${info}\n${text.replace(/\n+$/, '')}\n${fence}`;
}

/** `text` cut to at most `max` characters at a line end, saying how much was left out. */
function truncate(text: string, max: number): string {
  if (text.length <= max) return text;
  const cut = text.lastIndexOf('\n', max);
  const kept = text.slice(0, cut > 0 ? cut : max);
  return `${kept}\n… ${text.length - kept.length} more characters in the job's log.`;
}

function driftRow(r: StepResults): string {
  if (r.drift === 'success') return '✅ `dist/` matches a fresh synthesis of the config';
  if (r.drift === 'failure') return '❌ `dist/` does not match a fresh synthesis: run `npm run synth` and commit `dist/`';
  return `❔ did not run (${r.drift || 'no outcome'})`;
}

function diffRow(r: StepResults): string {
  if (r.diffExit === '0') return '✅ nothing risky';
  if (r.diffExit === '3') {
    return r.riskyAcknowledged ? `⚠️ risky changes, acknowledged by the label \`${RISKY_CHANGE_LABEL}\``
      : `❌ risky changes: review them below, then add the label \`${RISKY_CHANGE_LABEL}\``;
  }
  return r.diffExit === '' ? '❔ did not run' : `❌ failed (exit ${r.diffExit})`;
}

function coverageRow(r: StepResults): string {
  if (r.coverageExit === '0') return '✅ every manifest is reconciled and every path exists';
  if (r.coverageExit === '1') return '⚠️ findings (below; reported, not a gate)';
  return r.coverageExit === '' ? '❔ did not run' : `❌ failed (exit ${r.coverageExit})`;
}

/**
 * The body of the review comment: the hidden marker, a table of the checks, the gate's verdict, the diff's own
 * Markdown, and the longer outputs folded away. At most `MAX_COMMENT_LENGTH` characters: the diff keeps what is
 * left after the table, then the drift, coverage and plan outputs share the rest in that order.
 */
export function reviewCommentBody(results: StepResults, outputs: StepOutputs): string {
  const head = [
    REVIEW_COMMENT_MARKER,
    '### Homelab review',
    '',
    '| check | result |',
    '| --- | --- |',
    `| drift (\`npm run check\`) | ${driftRow(results)} |`,
    `| diff against the merge base (\`npm run diff\`) | ${diffRow(results)} |`,
    `| coverage audit (\`npm run coverage\`) | ${coverageRow(results)} |`,
    `| plan (\`npm run plan\`) | ${results.plan === 'success' ? '✅' : `❌ ${results.plan || 'did not run'}`} |`,
    '',
    gateVerdict(results).passes ? '**Gate: passes.**' : '**Gate: fails.**',
    '',
  ].join('\n');
  let room = MAX_COMMENT_LENGTH - head.length;
  const sections: string[] = [];
  const add = (text: string) => {
    const kept = truncate(text, Math.max(0, room));
    room -= kept.length + 2;
    if (kept.trim() !== '') sections.push(kept);
  };
  if (outputs.diff.trim() !== '') add(outputs.diff.trim());
  if (outputs.diffErrors.trim() !== '') add(`The diff said:\n\n${fenced(truncate(outputs.diffErrors, room - 100))}`);
  const folded = (summary: string, text: string) => {
    if (text.trim() === '' || room < 200) return;
    add(`<details><summary>${summary}</summary>\n\n${fenced(truncate(text, room - 200))}\n\n</details>`);
  };
  if (results.drift !== 'success') folded('Drift check output', outputs.drift);
  folded('Coverage audit', outputs.coverage);
  folded('Plan', outputs.plan);
  return `${head}\n${sections.join('\n\n')}\n`;
}

/** Where and as whom the comment is written. */
export interface CommentTarget {
  readonly platform: Platform;
  /** `github.api_url`: `https://api.github.com`, or Forgejo's `<ROOT_URL>api/v1`. */
  readonly apiUrl: string;
  readonly token: string;
  /** `owner/name`. */
  readonly repository: string;
  readonly pullRequest: number;
}

/** An API answer that was not a success; the message names the request and the status, never the token. */
export class CommentApiError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'CommentApiError';
  }
}

type Fetch = (url: string, init: { method: string; headers: Record<string, string>; body?: string }) =>
  Promise<{ ok: boolean; status: number; text(): Promise<string> }>;

/**
 * Creates the review comment, or edits the one a previous run created (found by `REVIEW_COMMENT_MARKER`), so a pull
 * request carries one review whatever the number of pushes. Both platforms serve the same three routes
 * (GET and POST `/repos/{owner}/{repo}/issues/{index}/comments`, PATCH `/repos/{owner}/{repo}/issues/comments/{id}`:
 * GitHub's REST API, and forgejo v11.0.1 routers/api/v1/api.go); they differ in listing: GitHub pages (at most 100 a
 * page), Forgejo's ListIssueComments returns every comment at once and reads no page parameter
 * (routers/api/v1/repo/issue_comment.go), so asking it for page 2 would return page 1 again.
 */
export async function upsertReviewComment(target: CommentTarget, body: string, fetchFn: Fetch = fetch as unknown as Fetch):
Promise<{ readonly action: 'created' | 'edited'; readonly id: number }> {
  const api = target.apiUrl.replace(/\/+$/, '');
  const headers: Record<string, string> = target.platform === 'github'
    ? { 'Authorization': `Bearer ${target.token}`, 'Accept': 'application/vnd.github+json', 'X-GitHub-Api-Version': '2022-11-28' }
    // Forgejo reads `token <t>` or `bearer <t>` (forgejo v11.0.1 services/auth/oauth2.go, parseToken).
    : { Authorization: `token ${target.token}`, Accept: 'application/json' };
  const call = async (method: string, url: string, payload?: unknown): Promise<unknown> => {
    const response = await fetchFn(url, {
      method, headers: payload === undefined ? headers : { ...headers, 'Content-Type': 'application/json' },
      ...(payload === undefined ? {} : { body: JSON.stringify(payload) }),
    }).catch((e: unknown) => {
      // Node's fetch rejects with "fetch failed" and the reason (ECONNREFUSED, ENOTFOUND) in its cause.
      const reason = e instanceof Error ? e.cause as { code?: string; message?: string } | undefined : undefined;
      const cause = reason?.code ?? reason?.message ?? (e instanceof Error ? e.message : String(e));
      throw new CommentApiError(`${method} ${url}: no answer (${cause}); check github.api_url.`);
    });
    const text = await response.text();
    if (!response.ok) {
      const hint = response.status === 401 || response.status === 403 || response.status === 404
        ? ' The token cannot write comments here: on GitHub the job needs `pull-requests: write`; on Forgejo the automatic token of a pull request from a fork is read-only.'
        : '';
      throw new CommentApiError(`${method} ${url}: HTTP ${response.status}: ${text.slice(0, 300)}${hint}`);
    }
    return text === '' ? undefined : JSON.parse(text);
  };
  const issueComments = `${api}/repos/${target.repository}/issues/${target.pullRequest}/comments`;
  const comments: { id: number; body?: string }[] = [];
  if (target.platform === 'github') {
    const perPage = 100;
    for (let page = 1; ; page++) {
      const batch = await call('GET', `${issueComments}?per_page=${perPage}&page=${page}`) as { id: number; body?: string }[];
      comments.push(...batch);
      if (batch.length < perPage) break;
    }
  } else {
    comments.push(...await call('GET', issueComments) as { id: number; body?: string }[]);
  }
  const previous = comments.filter((c) => typeof c.body === 'string' && c.body.includes(REVIEW_COMMENT_MARKER)).sort((a, b) => a.id - b.id)[0];
  if (previous !== undefined) {
    await call('PATCH', `${api}/repos/${target.repository}/issues/comments/${previous.id}`, { body });
    return { action: 'edited', id: previous.id };
  }
  const created = await call('POST', issueComments, { body }) as { id: number };
  return { action: 'created', id: created.id };
}
