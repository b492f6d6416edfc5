import * as YAML from 'yaml';

/** The CI systems the pull-request review is generated for. */
export type Platform = 'github' | 'forgejo';

export const PLATFORMS: readonly Platform[] = ['github', 'forgejo'];

/**
 * The label that acknowledges risky changes: with it on the pull request, the gate lets a diff that breaks apply,
 * destroys data or needs the runbook pass. Adding or removing it re-runs the review (`labeled`, `unlabeled`).
 */
export const RISKY_CHANGE_LABEL = 'risky-change-approved';

/** The hidden line that marks the review's pull-request comment, so each run edits it instead of adding one. */
export const REVIEW_COMMENT_MARKER = '<!-- homelab-gitops:pr-review -->';

/** The command that writes the workflows, named in their header. */
export const WORKFLOWS_COMMAND = 'npm run workflows';

/** Where the comment step finds what the earlier steps wrote, below the runner's temporary folder. */
export const REVIEW_DIR = '"$RUNNER_TEMP/pr-review"';

/** A file of `REVIEW_DIR`, quoted for the shell. */
const reviewFile = (name: string) => `"$RUNNER_TEMP/pr-review/${name}"`;

/** An action pinned by full commit SHA, with the release tag that SHA was read from (written as a comment). */
export interface PinnedAction {
  /** `owner/repo`, or a full URL where the platform resolves short names elsewhere. */
  readonly action: string;
  readonly sha: string;
  readonly version: string;
}

/** What differs between GitHub Actions and Forgejo Actions for this workflow (README, "Pull-request review"). */
export interface PlatformSettings {
  /** Where the platform reads workflows, relative to the repository root. */
  readonly path: string;
  /** The runner label(s) of the job. */
  readonly runsOn: string;
  readonly checkout: PinnedAction;
  readonly setupNode: PinnedAction;
  /** The token's permissions; undefined where the platform ignores the key. */
  readonly permissions?: Readonly<Record<string, 'read' | 'write'>>;
  /** Whether the platform honours `concurrency` (one review per pull request at a time). */
  readonly concurrency: boolean;
}

/**
 * The SHAs were read from the tags of github.com/actions/checkout and github.com/actions/setup-node
 * (`git rev-parse <tag>^{commit}`). v5 and later of both run on `node24` and declare `engines.node >= 24`; the
 * Forgejo runner runs a JavaScript action with the job container's own `node` whatever `runs.using` says
 * (forgejo/runner act/runner/action.go, `containerArgs := []string{"node", ...}`), and its default label's image
 * is node:20-bullseye (internal/app/cmd/register.go, `defaultLabels`), so Forgejo gets the last node20 releases.
 */
const ACTIONS = {
  checkoutV7: { action: 'actions/checkout', sha: '3d3c42e5aac5ba805825da76410c181273ba90b1', version: 'v7.0.1' },
  setupNodeV7: { action: 'actions/setup-node', sha: '820762786026740c76f36085b0efc47a31fe5020', version: 'v7.0.0' },
  checkoutV4: { action: 'https://github.com/actions/checkout', sha: '11d5960a326750d5838078e36cf38b85af677262', version: 'v4.4.0' },
  setupNodeV4: { action: 'https://github.com/actions/setup-node', sha: '49933ea5288caeca8642d1e84afbd3f7d6820020', version: 'v4.4.0' },
} as const satisfies Record<string, PinnedAction>;

export const PLATFORM_SETTINGS: Readonly<Record<Platform, PlatformSettings>> = {
  github: {
    path: '.github/workflows/pr-review.yaml',
    runsOn: 'ubuntu-latest',
    checkout: ACTIONS.checkoutV7,
    setupNode: ACTIONS.setupNodeV7,
    // Reading the repository and writing one comment; everything else is none once one scope is named.
    permissions: { 'contents': 'read', 'pull-requests': 'write' },
    concurrency: true,
  },
  forgejo: {
    path: '.forgejo/workflows/pr-review.yaml',
    // The label `forgejo-runner register` gives by default (forgejo/runner internal/app/cmd/register.go).
    runsOn: 'docker',
    // A full URL: Forgejo prepends DEFAULT_ACTIONS_URL (https://data.forgejo.org by default, forgejo v11.0.1
    // modules/setting/actions.go) only to a `uses:` without one; these SHAs were verified on GitHub.
    checkout: ACTIONS.checkoutV4,
    setupNode: ACTIONS.setupNodeV4,
    // Forgejo v11.0.1 reads neither key: its automatic token may write to the repository for a pull request
    // from the same repository and only read for one from a fork (routers/api/v1/api.go, repoAssignment), and
    // no code of services/actions or models/actions implements `concurrency`.
    concurrency: false,
  },
};

/** A step of the job: an action, or a shell script. */
export interface WorkflowStep {
  readonly name: string;
  readonly id?: string;
  readonly if?: string;
  readonly uses?: string;
  readonly with?: Readonly<Record<string, string | number>>;
  readonly env?: Readonly<Record<string, string>>;
  readonly run?: string;
}

/** The workflow, as the platforms read it (only the keys this workflow uses). */
export interface Workflow {
  readonly name: string;
  readonly on: { readonly pull_request: { readonly types: readonly string[] } };
  readonly permissions?: Readonly<Record<string, string>>;
  readonly concurrency?: { readonly 'group': string; readonly 'cancel-in-progress': boolean };
  readonly jobs: {
    readonly review: {
      readonly 'name': string;
      readonly 'runs-on': string;
      readonly 'timeout-minutes': number;
      readonly 'defaults': { readonly run: { readonly shell: string } };
      readonly 'steps': readonly WorkflowStep[];
    };
  };
}

/** Runs after a failed step too (the drift check fails the job but the comment still says why), not when cancelled. */
const AFTER_INSTALL = "${{ !cancelled() && steps.install.outcome == 'success' }}";

/** `run:` text from lines, ending with a newline (a YAML block scalar). */
const script = (...lines: string[]) => `${lines.join('\n')}\n`;

/**
 * The pull-request review workflow for `platform`: check out with full history, install, the drift check (fails
 * the job), the plan, the coverage audit (reported), the diff against the merge base (reported), one comment on the
 * pull request edited on every run, and the gate: drift fails, and risky changes fail unless the pull request
 * carries `RISKY_CHANGE_LABEL`.
 *
 * Contexts are passed to scripts through `env:`, never spliced into `run:` text, so a branch name cannot inject
 * shell. The expressions used (`github.*`, `secrets.GITHUB_TOKEN`, `steps.*`, `contains`, `cancelled`) exist on both
 * platforms: Forgejo's runner evaluates `github` and `forgejo` as the same context (forgejo/runner
 * act/exprparser/interpreter.go), and Forgejo fills `github.api_url` with `<ROOT_URL>api/v1` (forgejo v11.0.1
 * services/actions/context.go).
 */
export function prReviewWorkflow(platform: Platform): Workflow {
  const settings = PLATFORM_SETTINGS[platform];
  const pinned = (a: PinnedAction) => `${a.action}@${a.sha}`;
  const steps: WorkflowStep[] = [
    {
      name: 'Check out with full history (the merge base needs it)',
      uses: pinned(settings.checkout),
      with: { 'fetch-depth': 0 },
    },
    {
      name: 'Set up Node 20 with the npm cache',
      uses: pinned(settings.setupNode),
      with: { 'node-version': 20, 'cache': 'npm' },
    },
    {
      name: 'Install the locked dependencies',
      id: 'install',
      run: script(`mkdir -p ${REVIEW_DIR}`, 'npm ci --no-audit --no-fund'),
    },
    {
      name: 'Drift check (the committed dist/ matches a fresh synthesis)',
      id: 'drift',
      run: script(`npm run --silent check 2>&1 | tee ${reviewFile('drift.txt')}`),
    },
    {
      name: 'Plan',
      id: 'plan',
      if: AFTER_INSTALL,
      run: script(`npm run --silent plan -- --no-color 2>&1 | tee ${reviewFile('plan.txt')}`),
    },
    {
      name: 'Coverage audit (reported in the comment, not a gate)',
      id: 'coverage',
      if: AFTER_INSTALL,
      run: script(
        'status=0',
        `npm run --silent coverage -- --repo . > ${reviewFile('coverage.txt')} 2>&1 || status=$?`,
        `cat ${reviewFile('coverage.txt')}`,
        'echo "exit-code=$status" >> "$GITHUB_OUTPUT"',
        '# 0: clean, 1: findings (shown in the comment); 2: the audit could not run',
        '[ "$status" -le 1 ]',
      ),
    },
    {
      name: 'Diff against the merge base',
      id: 'diff',
      if: AFTER_INSTALL,
      env: { BASE_REF: '${{ github.base_ref }}' },
      run: script(
        'base=$(git merge-base HEAD "origin/$BASE_REF")',
        'status=0',
        `npm run --silent diff -- --base "$base" --markdown > ${reviewFile('diff.md')} 2> ${reviewFile('diff.err')} || status=$?`,
        `cat ${reviewFile('diff.md')} ${reviewFile('diff.err')}`,
        'echo "exit-code=$status" >> "$GITHUB_OUTPUT"',
        '# 0: nothing risky, 3: risky (the gate decides, after the comment); 1 or 2: no diff was made',
        '[ "$status" -eq 0 ] || [ "$status" -eq 3 ]',
      ),
    },
    {
      name: 'Post the review as the one pull-request comment (edited on every run)',
      if: AFTER_INSTALL,
      env: {
        FORGE_TOKEN: '${{ secrets.GITHUB_TOKEN }}',
        FORGE_API_URL: '${{ github.api_url }}',
        REPOSITORY: '${{ github.repository }}',
        HEAD_REPOSITORY: '${{ github.event.pull_request.head.repo.full_name }}',
        PR_NUMBER: '${{ github.event.pull_request.number }}',
        DRIFT_OUTCOME: '${{ steps.drift.outcome }}',
        PLAN_OUTCOME: '${{ steps.plan.outcome }}',
        COVERAGE_EXIT: '${{ steps.coverage.outputs.exit-code }}',
        DIFF_EXIT: '${{ steps.diff.outputs.exit-code }}',
        RISKY_ACKNOWLEDGED: `\${{ contains(github.event.pull_request.labels.*.name, '${RISKY_CHANGE_LABEL}') }}`,
      },
      run: script(`node --require tsx/cjs lib/workflows/post-review-comment.ts --platform ${platform} --dir ${REVIEW_DIR}`),
    },
    {
      name: `Gate: no drift, and no risky change without the ${RISKY_CHANGE_LABEL} label`,
      if: '${{ !cancelled() }}',
      env: {
        INSTALL_OUTCOME: '${{ steps.install.outcome }}',
        DRIFT_OUTCOME: '${{ steps.drift.outcome }}',
        DIFF_EXIT: '${{ steps.diff.outputs.exit-code }}',
        RISKY_ACKNOWLEDGED: `\${{ contains(github.event.pull_request.labels.*.name, '${RISKY_CHANGE_LABEL}') }}`,
      },
      run: script('node --require tsx/cjs lib/workflows/review-gate.ts'),
    },
  ];
  return {
    name: 'pr-review',
    on: { pull_request: { types: ['opened', 'synchronize', 'reopened', 'labeled', 'unlabeled'] } },
    ...(settings.permissions === undefined ? {} : { permissions: settings.permissions }),
    ...(settings.concurrency
      // A newer push or label change supersedes a running review; two runs never race to create the comment.
      ? { concurrency: { 'group': 'pr-review-${{ github.event.pull_request.number }}', 'cancel-in-progress': true } }
      : {}),
    jobs: {
      review: {
        'name': 'review',
        'runs-on': settings.runsOn,
        'timeout-minutes': 30,
        // `shell: bash` runs `bash --noprofile --norc -eo pipefail {0}` on both platforms (forgejo/runner
        // act/runner/step_run.go), so a failing command before `| tee` fails its step.
        'defaults': { run: { shell: 'bash' } },
        'steps': steps,
      },
    },
  };
}

/** The header every generated file starts with. */
function header(what: string): string {
  return `# ${what}.\n# Generated by \`${WORKFLOWS_COMMAND}\` from lib/workflows/pr-review.ts: do not edit; change the generator and run\n` +
    '# the command again (`npm run check` fails while this file differs from what it writes).\n';
}

/** The workflow of `platform` as YAML, each pinned action's version written as a comment beside its SHA. */
export function renderWorkflow(platform: Platform): string {
  const settings = PLATFORM_SETTINGS[platform];
  const doc = new YAML.Document(prReviewWorkflow(platform));
  const versions = new Map([settings.checkout, settings.setupNode].map((a) => [`${a.action}@${a.sha}`, a.version]));
  YAML.visit(doc, {
    Scalar(_key, node) {
      const version = typeof node.value === 'string' ? versions.get(node.value) : undefined;
      if (version !== undefined) node.comment = ` ${version}`;
    },
  });
  const what = platform === 'github' ? 'The pull-request review for GitHub Actions' : 'The pull-request review for Forgejo Actions';
  return header(what) + doc.toString({ lineWidth: 0 });
}

/**
 * actionlint's configuration (.github/actionlint.yaml, where actionlint looks for it): the Forgejo runner's label is
 * not a GitHub-hosted runner label, and actionlint knows only `{owner}/{repo}@{ref}` in `uses:`, while Forgejo takes
 * a full URL (rhysd/actionlint v1.7.12 rule_action.go, checkRepoAction: "owner and repo and ref should not be
 * empty"). Both exceptions are limited to the Forgejo workflow.
 */
export function renderActionlintConfig(): string {
  const forgejo = PLATFORM_SETTINGS.forgejo;
  const config = {
    'self-hosted-runner': { labels: [forgejo.runsOn] },
    'paths': {
      [forgejo.path]: { ignore: ['specifying action "https://[^"]+" in invalid format because owner and repo and ref should not be empty'] },
    },
  };
  return header('actionlint\'s settings for the generated workflows (scripts/build-actionlint.js, .ci/run)') + YAML.stringify(config, { lineWidth: 0 });
}

/** Every file `npm run workflows` writes, by path relative to the repository root, in a stable order. */
export function generatedWorkflowFiles(): Map<string, string> {
  const files = new Map<string, string>();
  for (const platform of PLATFORMS) files.set(PLATFORM_SETTINGS[platform].path, renderWorkflow(platform));
  files.set('.github/actionlint.yaml', renderActionlintConfig());
  return files;
}
