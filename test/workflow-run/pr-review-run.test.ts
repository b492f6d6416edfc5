import { spawn, spawnSync } from 'child_process';
import * as fs from 'fs';
import * as http from 'http';
import { AddressInfo } from 'net';
import * as os from 'os';
import * as path from 'path';
import * as YAML from 'yaml';
import { Platform, PLATFORM_SETTINGS, REVIEW_COMMENT_MARKER, RISKY_CHANGE_LABEL, WorkflowStep } from '../../lib/workflows/pr-review';

// Runs the generated pull-request workflows' `run:` steps, in order, on a fixture homelab repository: a copy of this
// repository's files (tracked, or new and not ignored) with a `main` commit pushed to a bare `origin` and one branch
// per pull request. Each step runs as the platforms run it (`bash --noprofile --norc -eo pipefail`, forgejo/runner
// act/runner/step_run.go), with the env the workflow sets, `${{ }}` replaced from the explicit table below,
// `$GITHUB_OUTPUT` read back into `steps.<id>.outputs`, and `if:` decided by the table of conditions. The comment API is a local HTTP server that
// records every request. Stand-ins, by design:
//   - `uses:` steps are asserted (full-history checkout, Node 20 with the npm cache) and not run: the fixture is
//     already a full-history clone, and this Node runs the steps;
//   - `npm ci` is replaced by a check that node_modules (a symlink to this project's, installed from the same
//     package-lock.json) is installed; every npm script's pre-script (scripts/ensure-installed.js) still verifies it
//     matches the lockfile.
// Takes about three minutes (five workflow runs of check, plan, coverage and diff, a few seconds each), so it is a suite
// of its own: `npm run test:workflows`, run by .ci/run.

const ROOT = path.resolve(__dirname, '../..');
const REPOSITORY = 'homelab-owner/homelab';
const TOKEN = 'fixture-token';
const INSTALL_STAND_IN = 'test -e node_modules/.package-lock.json';

interface RecordedRequest {
  readonly method: string;
  readonly url: string;
  readonly authorization: string;
  readonly body?: { body: string };
}

/** The forge's comment API as both platforms serve it: list, create, edit. */
class FakeCommentApi {
  readonly requests: RecordedRequest[] = [];
  readonly comments = new Map<number, { id: number; body: string }[]>();
  private nextId = 1000;
  private server = http.createServer((req, res) => this.answer(req, res));

  async start(): Promise<string> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/api/v1`;
  }

  stop(): Promise<void> {
    return new Promise((resolve) => this.server.close(() => resolve()));
  }

  private answer(req: http.IncomingMessage, res: http.ServerResponse) {
    let data = '';
    req.on('data', (chunk) => { data += chunk; });
    req.on('end', () => {
      const body = data === '' ? undefined : JSON.parse(data);
      this.requests.push({ method: req.method ?? '', url: req.url ?? '', authorization: req.headers.authorization ?? '', body });
      const reply = (status: number, value: unknown) => {
        res.writeHead(status, { 'Content-Type': 'application/json' });
        res.end(JSON.stringify(value));
      };
      const pathname = (req.url ?? '').split('?')[0];
      const list = new RegExp(`^/api/v1/repos/${REPOSITORY}/issues/(\\d+)/comments$`).exec(pathname);
      const edit = new RegExp(`^/api/v1/repos/${REPOSITORY}/issues/comments/(\\d+)$`).exec(pathname);
      if (list && req.method === 'GET') {
        const page = Number(new URLSearchParams((req.url ?? '').split('?')[1] ?? '').get('page') ?? '1');
        return reply(200, page === 1 ? this.comments.get(Number(list[1])) ?? [] : []);
      }
      if (list && req.method === 'POST') {
        const comment = { id: this.nextId++, body: body.body };
        this.comments.set(Number(list[1]), [...this.comments.get(Number(list[1])) ?? [], comment]);
        return reply(201, comment);
      }
      if (edit && req.method === 'PATCH') {
        const comment = [...this.comments.values()].flat().find((c) => c.id === Number(edit[1]));
        if (comment === undefined) return reply(404, { message: 'comment not found' });
        comment.body = body.body;
        return reply(200, comment);
      }
      return reply(404, { message: `no route ${req.method} ${pathname}` });
    });
  }
}

function git(cwd: string, ...args: string[]): string {
  const r = spawnSync('git', args, { cwd, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`git ${args.join(' ')}: ${r.stderr}`);
  return r.stdout.trim();
}

/** A fixture homelab repository: this repository's files (tracked, or new and not ignored) on `main`, pushed to a bare `origin`. */
function makeFixture(tmp: string): string {
  const origin = path.join(tmp, 'origin.git');
  const work = path.join(tmp, 'work');
  fs.mkdirSync(work);
  const files = spawnSync('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], { cwd: ROOT, encoding: 'utf8' }).stdout.split('\0').filter((f) => f !== '');
  for (const file of files) {
    const from = path.join(ROOT, file);
    if (!fs.existsSync(from)) continue; // deleted in the working tree
    fs.mkdirSync(path.dirname(path.join(work, file)), { recursive: true });
    fs.copyFileSync(from, path.join(work, file));
    fs.chmodSync(path.join(work, file), fs.statSync(from).mode);
  }
  fs.symlinkSync(path.join(ROOT, 'node_modules'), path.join(work, 'node_modules'));
  git(tmp, 'init', '-q', '--bare', '-b', 'main', origin);
  git(work, 'init', '-q', '-b', 'main');
  git(work, 'config', 'user.email', 'fixture@example.net');
  git(work, 'config', 'user.name', 'fixture');
  git(work, 'add', '-A');
  git(work, 'commit', '-q', '-m', 'base');
  git(work, 'remote', 'add', 'origin', origin);
  git(work, 'push', '-q', 'origin', 'main');
  git(work, 'fetch', '-q', 'origin');
  return work;
}

/** A pull-request branch from `main` with `change` applied and committed. */
function branch(work: string, name: string, change: () => void) {
  git(work, 'checkout', '-q', '-b', name, 'main');
  change();
  git(work, 'add', '-A');
  git(work, 'commit', '-q', '-m', name);
  git(work, 'checkout', '-q', 'main');
}

interface StepRun {
  readonly name: string;
  readonly id?: string;
  readonly outcome: 'success' | 'failure' | 'skipped';
  readonly output: string;
}

interface WorkflowRun {
  readonly steps: StepRun[];
  readonly conclusion: 'success' | 'failure';
  /** The name of the first step that failed. */
  readonly failedAt?: string;
}

/** Runs one bash script as a workflow step does; async, so the fake API in this process can answer meanwhile. */
function runScript(script: string, cwd: string, env: Record<string, string>): Promise<{ status: number; output: string }> {
  return new Promise((resolve) => {
    const child = spawn('bash', ['--noprofile', '--norc', '-eo', 'pipefail', '-c', script], { cwd, env });
    let output = '';
    child.stdout.on('data', (d) => { output += d; });
    child.stderr.on('data', (d) => { output += d; });
    child.on('close', (status) => resolve({ status: status ?? 1, output }));
  });
}

/**
 * Runs the committed workflow of `platform` in `work` (its current checkout) for pull request `number` with
 * `labels`. The context table is explicit: an expression it does not know fails the test.
 */
async function runWorkflow(work: string, platform: Platform, pr: { number: number; labels: string[] }, apiUrl: string): Promise<WorkflowRun> {
  const workflow = YAML.parse(fs.readFileSync(path.join(work, PLATFORM_SETTINGS[platform].path), 'utf8'));
  const job = workflow.jobs.review;
  expect(job.defaults.run.shell).toBe('bash');
  const context: Record<string, string> = {
    'github.base_ref': 'main',
    'github.api_url': apiUrl,
    'github.repository': REPOSITORY,
    'github.event.pull_request.head.repo.full_name': REPOSITORY,
    'github.event.pull_request.number': String(pr.number),
    'secrets.GITHUB_TOKEN': TOKEN,
    [`contains(github.event.pull_request.labels.*.name, '${RISKY_CHANGE_LABEL}')`]: String(pr.labels.includes(RISKY_CHANGE_LABEL)),
  };
  const runnerTemp = fs.mkdtempSync(path.join(os.tmpdir(), 'runner-temp-'));
  const outcomes: Record<string, string> = {};
  const outputs: Record<string, Record<string, string>> = {};
  const evaluate = (expression: string): string => {
    const e = expression.trim();
    if (e in context) return context[e];
    const outcome = /^steps\.([\w-]+)\.outcome$/.exec(e);
    if (outcome) return outcomes[outcome[1]] ?? '';
    const output = /^steps\.([\w-]+)\.outputs\.([\w-]+)$/.exec(e);
    if (output) return outputs[output[1]]?.[output[2]] ?? '';
    throw new Error(`the test's context table does not know \${{ ${e} }}`);
  };
  const substitute = (value: string) => value.replace(/\$\{\{(.*?)\}\}/g, (_m, e: string) => evaluate(e));
  const steps: StepRun[] = [];
  const failed = () => steps.some((s) => s.outcome === 'failure');
  const conditions: Record<string, () => boolean> = {
    "${{ !cancelled() && steps.install.outcome == 'success' }}": () => outcomes.install === 'success',
    '${{ !cancelled() }}': () => true,
  };
  for (const step of job.steps as WorkflowStep[]) {
    if (step.if !== undefined && !(step.if in conditions)) throw new Error(`the test's condition table does not know if: ${step.if}`);
    const runs = step.if === undefined ? !failed() : conditions[step.if]();
    if (!runs) {
      steps.push({ name: step.name, id: step.id, outcome: 'skipped', output: '' });
      if (step.id) outcomes[step.id] = 'skipped';
      continue;
    }
    if (step.uses !== undefined) {
      steps.push({ name: step.name, id: step.id, outcome: 'success', output: `(stand-in for ${step.uses})` });
      continue;
    }
    let script = step.run ?? '';
    if (step.id === 'install') {
      expect(script).toContain('npm ci --no-audit --no-fund\n');
      script = script.replace('npm ci --no-audit --no-fund', INSTALL_STAND_IN);
    }
    const outputFile = path.join(runnerTemp, `output-${steps.length}`);
    fs.writeFileSync(outputFile, '');
    const env: Record<string, string> = {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? os.homedir(),
      RUNNER_TEMP: runnerTemp,
      GITHUB_OUTPUT: outputFile,
      // The pinned CRDs where this project's own `npm run check` reads them (scripts/crd-sources.js's default).
      CRD_DIR: path.resolve(ROOT, process.env.CRD_DIR ?? '../shared/crds'),
      ...Object.fromEntries(Object.entries(step.env ?? {}).map(([k, v]) => [k, substitute(v)])),
    };
    const result = await runScript(script, work, env);
    const outcome = result.status === 0 ? 'success' : 'failure';
    steps.push({ name: step.name, id: step.id, outcome, output: result.output });
    if (step.id) {
      outcomes[step.id] = outcome;
      outputs[step.id] = Object.fromEntries(fs.readFileSync(outputFile, 'utf8').split('\n').filter((l) => l.includes('='))
        .map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)]));
    }
  }
  fs.rmSync(runnerTemp, { recursive: true, force: true });
  const firstFailure = steps.find((s) => s.outcome === 'failure');
  return { steps, conclusion: firstFailure ? 'failure' : 'success', ...(firstFailure ? { failedAt: firstFailure.name } : {}) };
}

/** The step whose name starts with `prefix`. */
const step = (run: WorkflowRun, prefix: string) => run.steps.find((s) => s.name.startsWith(prefix))!;

describe('the generated pull-request workflow, run on a fixture homelab repository', () => {
  let tmp: string;
  let work: string;
  let api: FakeCommentApi;
  let apiUrl: string;

  beforeAll(async () => {
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'pr-review-run-'));
    work = makeFixture(tmp);
    api = new FakeCommentApi();
    apiUrl = await api.start();
    // A pull request that changes no output: a README edit.
    branch(work, 'pr-noop', () => fs.appendFileSync(path.join(work, 'README.md'), '\nA note.\n'));
    // A pull request whose dist/ was edited by hand: it no longer matches the config.
    branch(work, 'pr-drift', () => fs.appendFileSync(path.join(work, 'dist/argocd/apps/grafana.yaml'), '# edited by hand\n'));
    // A pull request that shrinks forgejo-db's volumes (10Gi → 5Gi) and re-synthesizes dist/: no drift, but risky.
    branch(work, 'pr-risky', () => {
      fs.writeFileSync(path.join(work, 'homelab.config.ts'), [
        "import { HomelabConfig } from './lib/config/homelab-config';",
        "import { REFERENCE_HOMELAB } from './lib/config/defaults';",
        '',
        'const config: HomelabConfig = {',
        '  ...REFERENCE_HOMELAB,',
        '  postgresClusters: {',
        '    ...REFERENCE_HOMELAB.postgresClusters,',
        "    'forgejo-db': { ...REFERENCE_HOMELAB.postgresClusters!['forgejo-db'], storageSize: '5Gi' },",
        '  },',
        '};',
        '',
        'export default config;',
        '',
      ].join('\n'));
      const synth = spawnSync('npm', ['run', '--silent', 'synth'], { cwd: work, encoding: 'utf8' });
      if (synth.status !== 0) throw new Error(`synth of the risky branch failed: ${synth.stdout}${synth.stderr}`);
    });
  }, 120_000);

  afterAll(async () => {
    await api?.stop();
    if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
  });

  test('the action steps check out the full history and set up Node 20 with the npm cache', () => {
    for (const platform of ['github', 'forgejo'] as const) {
      const steps = YAML.parse(fs.readFileSync(path.join(work, PLATFORM_SETTINGS[platform].path), 'utf8')).jobs.review.steps as WorkflowStep[];
      expect(steps[0]).toMatchObject({ uses: expect.stringMatching(/actions\/checkout@[0-9a-f]{40}$/), with: { 'fetch-depth': 0 } });
      expect(steps[1]).toMatchObject({ uses: expect.stringMatching(/actions\/setup-node@[0-9a-f]{40}$/), with: { 'node-version': 20, 'cache': 'npm' } });
      expect(steps.slice(2).every((s) => s.uses === undefined)).toBe(true);
    }
  });

  test('a pull request that changes no output passes and posts one comment saying nothing is risky', async () => {
    // GIVEN
    git(work, 'checkout', '-q', 'pr-noop');
    // WHEN
    const run = await runWorkflow(work, 'github', { number: 7, labels: [] }, apiUrl);
    // THEN
    expect(run.steps.map((s) => [s.id ?? s.name, s.outcome])).toEqual(run.steps.map((s) => [s.id ?? s.name, 'success']));
    expect(run.conclusion).toBe('success');
    const pr7 = api.requests.filter((r) => r.url.includes('/issues/7/'));
    expect(pr7.map((r) => r.method)).toEqual(['GET', 'POST']);
    expect(pr7[0].url).toContain('per_page=100&page=1');
    expect(pr7[1].authorization).toBe(`Bearer ${TOKEN}`);
    const body = pr7[1].body!.body;
    expect(body).toContain(REVIEW_COMMENT_MARKER);
    expect(body).toContain('Nothing risky.');
    expect(body).toContain('**Gate: passes.**');
    expect(body).toContain('✅ `dist/` matches a fresh synthesis');
  }, 300_000);

  test('fails at the drift step when dist/ no longer matches the config, and the comment says why', async () => {
    // GIVEN
    git(work, 'checkout', '-q', 'pr-drift');
    // WHEN
    const run = await runWorkflow(work, 'github', { number: 8, labels: [] }, apiUrl);
    // THEN
    expect(run.conclusion).toBe('failure');
    expect(run.failedAt).toBe(step(run, 'Drift check').name);
    expect(step(run, 'Drift check').output).toMatch(/grafana\.yaml/);
    expect(step(run, 'Gate').outcome).toBe('failure');
    expect(step(run, 'Gate').output).toContain('dist/ does not match a fresh synthesis');
    const posted = api.comments.get(8)!;
    expect(posted).toHaveLength(1);
    expect(posted[0].body).toContain('❌ `dist/` does not match a fresh synthesis');
    expect(posted[0].body).toContain('**Gate: fails.**');
  }, 300_000);

  test('a risky change fails the gate without the label, passes with it, and the second run edits the same comment', async () => {
    // GIVEN
    git(work, 'checkout', '-q', 'pr-risky');
    // WHEN
    const unacknowledged = await runWorkflow(work, 'github', { number: 9, labels: [] }, apiUrl);
    const acknowledged = await runWorkflow(work, 'github', { number: 9, labels: ['documentation', RISKY_CHANGE_LABEL] }, apiUrl);
    // THEN
    expect(unacknowledged.conclusion).toBe('failure');
    expect(unacknowledged.failedAt).toBe(step(unacknowledged, 'Gate').name);
    expect(step(unacknowledged, 'Diff').output).toMatch(/forgejo-db/);
    expect(step(unacknowledged, 'Gate').output).toContain(`add the label ${RISKY_CHANGE_LABEL}`);
    expect(acknowledged.conclusion).toBe('success');
    expect(step(acknowledged, 'Gate').output).toContain(`acknowledged by the label ${RISKY_CHANGE_LABEL}`);
    const pr9 = api.requests.filter((r) => r.url.includes('/issues/9/') || r.method === 'PATCH');
    expect(pr9.map((r) => r.method)).toEqual(['GET', 'POST', 'GET', 'PATCH']);
    const [comment] = api.comments.get(9)!;
    expect(api.comments.get(9)).toHaveLength(1);
    expect(pr9[3].url).toBe(`/api/v1/repos/${REPOSITORY}/issues/comments/${comment.id}`);
    expect(pr9[1].body!.body).toContain(`❌ risky changes: review them below, then add the label \`${RISKY_CHANGE_LABEL}\``);
    expect(comment.body).toContain(`⚠️ risky changes, acknowledged by the label \`${RISKY_CHANGE_LABEL}\``);
    expect(comment.body).toMatch(/destroys data/);
  }, 600_000);

  test('the Forgejo workflow runs the same steps and talks to the Forgejo API its way', async () => {
    // GIVEN
    git(work, 'checkout', '-q', 'pr-noop');
    // WHEN
    const run = await runWorkflow(work, 'forgejo', { number: 11, labels: [] }, apiUrl);
    // THEN
    expect(run.conclusion).toBe('success');
    const pr11 = api.requests.filter((r) => r.url.includes('/issues/11/'));
    expect(pr11.map((r) => r.method)).toEqual(['GET', 'POST']);
    // One unpaged list (Forgejo v11 ListIssueComments returns every comment and reads no page parameter).
    expect(pr11[0].url).toBe(`/api/v1/repos/${REPOSITORY}/issues/11/comments`);
    expect(pr11[1].authorization).toBe(`token ${TOKEN}`);
    expect(pr11[1].body!.body).toContain('**Gate: passes.**');
  }, 300_000);
});
