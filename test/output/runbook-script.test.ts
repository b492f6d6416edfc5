import * as fs from 'fs';
import * as path from 'path';
import { RunbookOptions } from '../../lib/output/render-runbook';
import { buildSteps, FixtureOptions, RunbookSandbox, RunResult, writeRunbook } from '../fixtures/runbook-fixture';

const OPTIONS: RunbookOptions = { minKubectlVersion: '1.29' };
const SSA = 'apply --server-side --force-conflicts --field-manager=homelab-bootstrap';
const JOB_STATE = 'get job wait-for-db -n demo -o jsonpath={range .status.conditions[?(@.status=="True")]}{.type}{"\\t"}{.message}{"\\n"}{end}';

/** Every kubectl call of a full run on a cluster where everything is ready, in order. */
const FULL_RUN = [
  'version --client -o json',
  'config current-context',
  `${SSA}-namespaces -f <dir>/01-namespaces.yaml`,
  `${SSA}-operator -k <dir>/02-operator`,
  'wait --for=condition=Established crd/widgets.example.com crd/gadgets.example.com --timeout=120s',
  'rollout status deployment/operator -n operator-system --timeout=120s',
  'create --dry-run=server -f -',
  'delete job -n demo wait-for-db --ignore-not-found --wait=true',
  `${SSA}-database -f <dir>/03-database.yaml`,
  'wait --for=condition=Ready clusters.example.com/db -n demo --timeout=600s',
  JOB_STATE,
  'get secret argocd-secret -n argocd',
  `${SSA}-repo-credential -k <staging>/04-repo-credential`,
];

function sandbox(fixture: FixtureOptions = {}, options: RunbookOptions = OPTIONS): RunbookSandbox {
  return new RunbookSandbox(writeRunbook(buildSteps(fixture), options));
}

/** Temporary folders the runbook left next to its own folder (its TMPDIR in the sandbox). */
function leftoverStaging(box: RunbookSandbox): string[] {
  return fs.readdirSync(path.dirname(box.dir)).filter((f) => f.startsWith('tmp.'));
}

describe('bootstrap.sh against a recording kubectl', () => {
  let jobTimeout: Promise<RunResult>;
  let webhookTimeout: Promise<RunResult>;
  beforeAll(() => {
    // A 2s timeout (whole seconds: 1-2 s of wall clock) with 0.25s polls guarantees a second poll, even if a
    // second boundary passes during the first.
    const jobBox = sandbox({ jobTimeoutSeconds: 2 }, { ...OPTIONS, pollIntervalSeconds: 0.25 });
    jobBox.writeSeedKey('k');
    jobTimeout = jobBox.runAsync([], { FAKE_JOB_STATE: '' });
    const webhookBox = sandbox({ webhookTimeoutSeconds: 2 }, { ...OPTIONS, pollIntervalSeconds: 0.25 });
    webhookBox.writeSeedKey('k');
    webhookTimeout = webhookBox.runAsync([], { FAKE_CREATE_EXIT: '1' });
  });
  // a run that failed to start must not go unnoticed until its test (nor be an unhandled rejection)
  afterAll(() => Promise.all([jobTimeout, webhookTimeout]));

  test('a generated Secret is created once with a random value, then kept', () => {
    // GIVEN a step that needs a generated Secret, on a cluster without it
    const box = sandbox({ generatedSecret: true });
    box.writeSeedKey('k');
    // WHEN
    const first = box.run([], { FAKE_MISSING_SECRETS: 'db-key' });
    // THEN it is created from a private file, and the value is printed nowhere
    expect(first.status).toBe(0);
    const database = first.calls.indexOf('delete job -n demo wait-for-db --ignore-not-found --wait=true');
    expect(first.calls.slice(database - 2, database)).toEqual([
      'get secret db-key -n demo',
      'create secret generic db-key -n demo --from-file=key=<staging>/generated-db-key',
    ]);
    const value = fs.readFileSync(`${box.log}.secret`, 'utf8');
    expect(value).toMatch(/^[A-Za-z0-9+/]{64}$/);
    expect(first.stdout + first.stderr).not.toContain(value);
    expect(first.stdout).toContain('✓ Secret demo/db-key created with a random key');
    expect(leftoverStaging(box)).toEqual([]);
    // WHEN re-run on the cluster that has it THEN it is kept
    const second = box.run();
    expect(second.status).toBe(0);
    expect(second.stdout).toContain('✓ Secret demo/db-key exists (kept)');
    expect(second.calls.filter((c) => c.startsWith('create secret'))).toEqual([]);
  });

  // One full run, asserted on every facet it shows, then a re-run in the same sandbox.
  describe('a full run on a cluster where everything is ready, then a re-run', () => {
    let box: RunbookSandbox;
    let first: RunResult;
    let applied: { key: string; keyMode: number; dirMode: number; kustomization: string };
    let keyInOutput: boolean;
    let stagingAfterFirst: string[];
    let again: RunResult;
    beforeAll(() => {
      // GIVEN a key file that others may read
      box = sandbox();
      box.writeSeedKey('PRIVATE KEY\n', 0o644);
      // WHEN
      first = box.run();
      const dir = path.join(box.snapshots, '04-repo-credential');
      applied = {
        key: fs.readFileSync(path.join(dir, 'sshPrivateKey'), 'utf8'),
        keyMode: fs.statSync(path.join(dir, 'sshPrivateKey')).mode & 0o777,
        dirMode: fs.statSync(dir).mode & 0o777,
        kustomization: fs.readFileSync(path.join(dir, 'kustomization.yaml'), 'utf8'),
      };
      keyInOutput = fs.existsSync(path.join(box.dir, '04-repo-credential', 'sshPrivateKey'));
      stagingAfterFirst = leftoverStaging(box);
      // AND again, on the cluster it bootstrapped
      again = box.run();
    });

    test('a full run applies every step in order and waits after each', () => {
      expect(first.stderr).toBe('');
      expect(first.status).toBe(0);
      expect(first.calls).toEqual(FULL_RUN);
      expect(first.stdout).toContain('[3/4] database: a database and a Job that waits for it\n');
      expect(first.stdout).toMatch(/\n {2}✓ Deployment operator-system\/operator rolled out \(\d+s\)\n/);
      expect(first.stdout).toMatch(/\n {2}✓ Job demo\/wait-for-db complete \(\d+s\)\n/);
      expect(first.stdout).toContain('✓ kubectl 1.30.2 (>= 1.29)');
      expect(first.stdout).toMatch(/Bootstrap complete: 4 steps applied and ready.\n$/);
    });

    test('the webhook probe is fed to kubectl create --dry-run=server intact', () => {
      expect(JSON.parse(first.stdin)).toEqual({
        apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'probe', namespace: 'operator-system' }, spec: { note: "it's" },
      });
    });

    test('the key is copied into a private copy of the step folder, which is removed afterwards', () => {
      expect(first.status).toBe(0);
      expect(applied.key).toBe('PRIVATE KEY\n');
      expect(applied.keyMode).toBe(0o600);
      expect(applied.dirMode).toBe(0o700);
      expect(applied.kustomization).toBe(fs.readFileSync(path.join(box.dir, '04-repo-credential', 'kustomization.yaml'), 'utf8'));
      // the output folder never holds the key, and the private copy is gone
      expect(keyInOutput).toBe(false);
      expect(stagingAfterFirst).toEqual([]);
    });

    test('a re-run on a bootstrapped cluster succeeds with the same calls, deleting the Job again', () => {
      expect(first.status).toBe(0);
      expect(again.status).toBe(0);
      expect(again.calls).toEqual(FULL_RUN);
      const deleteJob = again.calls.indexOf('delete job -n demo wait-for-db --ignore-not-found --wait=true');
      expect(deleteJob).toBeGreaterThan(-1);
      expect(deleteJob).toBeLessThan(again.calls.indexOf(`${SSA}-database -f <dir>/03-database.yaml`));
    });
  });

  test('--dry-run prints the whole plan and runs no kubectl command', () => {
    // GIVEN
    const box = sandbox();

    // WHEN
    const r = box.run(['--dry-run']);

    // THEN
    expect(r.status).toBe(0);
    expect(fs.existsSync(box.log)).toBe(false);
    expect(r.calls).toEqual([]);
    const out = r.stdout;
    for (const header of ['[1/4] namespaces: namespaces', '[2/4] operator: the widget operator (release manifest)',
      '[3/4] database: a database and a Job that waits for it', '[4/4] repo-credential: Argo CD repository credential']) {
      expect(out).toContain(`\n${header}\n`);
    }
    expect(out).toContain(`  apply   kubectl ${SSA}-namespaces -f 01-namespaces.yaml\n`);
    expect(out).toContain(`  apply   kubectl ${SSA}-repo-credential -k <private copy of 04-repo-credential>\n`);
    expect(out).toContain('  copy    $SEED_DEPLOY_KEY into the copy as sshPrivateKey\n');
    expect(out).toContain('  wait    CRDs established: widgets.example.com, gadgets.example.com (timeout 120s)\n');
    expect(out).toContain('  wait    widget webhooks answer a dry-run create (timeout 120s)\n');
    expect(out).toContain('  wait    Job demo/wait-for-db complete (timeout 900s)\n');
    expect(out).toContain('  delete  Job demo/wait-for-db (Jobs are immutable: the re-applied Job runs again)\n');
    expect(out).toContain('  check   Secret argocd/argocd-secret exists\n');
    expect(out).toContain('  check   kubectl >= 1.29 on PATH\n');
    expect(out).toContain(`  needs   SEED_DEPLOY_KEY=${box.home}/.ssh/seed_key (MISSING: Create a deploy key`);
    expect(out).toContain('Dry run complete: 4 steps planned, nothing applied.');
  });

  test('--help prints the usage and exits 0 without kubectl', () => {
    const box = sandbox();
    const r = box.run(['--help']);
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(/^Usage: bootstrap.sh \[--dry-run\] \[--help\]\n/);
    expect(r.stdout).toContain('  SEED_DEPLOY_KEY ');
    expect(r.calls).toEqual([]);
  });

  test('fails with exit 2 and the usage on an unknown flag', () => {
    const box = sandbox();
    const r = box.run(['--force']);
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/^unknown option: --force\n\nUsage: bootstrap.sh/);
    expect(r.calls).toEqual([]);
  });

  test('fails when the wait Job fails, showing its logs, the watched objects and how to inspect', () => {
    // GIVEN
    const box = sandbox();
    box.writeSeedKey('k');

    // WHEN
    const r = box.run([], { FAKE_JOB_STATE: 'Failed\tBackoffLimitExceeded: Job has reached the specified backoff limit' });

    // THEN
    expect(r.status).toBe(1);
    expect(r.calls).toEqual([
      ...FULL_RUN.slice(0, FULL_RUN.indexOf(JOB_STATE) + 1),
      'logs job/wait-for-db -n demo --all-containers',
      'get clusters.example.com/db -n demo -o jsonpath={.status.phase}',
      'get databases.example.com/app -n demo -o jsonpath={.status.message}',
    ]);
    // elapsed time is whole wall-clock seconds, so it may read 1s even for a fast failure
    expect(r.stderr.replace(/\(after \d+s\)/g, '(after Ns)')).toContain([
      '  ✗ FAILED: Job demo/wait-for-db complete (after Ns)',
      '    the Job failed: BackoffLimitExceeded: Job has reached the specified backoff limit',
      '    $ kubectl logs job/wait-for-db -n demo --all-containers',
      '      logs of job/wait-for-db',
      "    $ kubectl get clusters.example.com/db -n demo -o 'jsonpath={.status.phase}'",
      '      status of clusters.example.com/db',
      "    $ kubectl get databases.example.com/app -n demo -o 'jsonpath={.status.message}'",
      '      status of databases.example.com/app',
      '    inspect: kubectl describe job/wait-for-db -n demo',
      '',
      'Stopped at step 3/4 (database).',
    ].join('\n'));
  });

  // These two runs poll until a timeout of whole seconds passes, so they mostly sleep: they start in the
  // beforeAll below and run while the other tests do.
  test('fails when the wait Job does not finish within its timeout, after polling it', async () => {
    const r = await jobTimeout;
    expect(r.status).toBe(1);
    expect(r.calls.filter((c) => c === JOB_STATE).length).toBeGreaterThanOrEqual(2);
    expect(r.stderr).toContain('    the Job did not finish within 2s\n');
    expect(r.stderr).toContain('    inspect: kubectl describe job/wait-for-db -n demo\n');
  }, 20_000);

  test('fails when the webhook never answers, after retrying the probe', async () => {
    const r = await webhookTimeout;
    expect(r.status).toBe(1);
    expect(r.calls.filter((c) => c === 'create --dry-run=server -f -').length).toBeGreaterThanOrEqual(2);
    expect(r.calls[r.calls.length - 1]).toBe('create --dry-run=server -f -');
    expect(r.stderr).toContain('  ✗ FAILED: widget webhooks answer a dry-run create');
    expect(r.stderr).toContain('    Error from server (InternalError): failed calling webhook: connection refused\n');
    expect(r.stderr).toContain('| kubectl create --dry-run=server -f -\n');
  }, 20_000);

  test('fails before applying anything when the deploy key file is missing', () => {
    // GIVEN no ~/.ssh/seed_key in the sandbox HOME
    const box = sandbox();

    // WHEN
    const r = box.run();

    // THEN
    expect(r.status).toBe(1);
    expect(r.calls).toEqual(['version --client -o json', 'config current-context']);
    expect(r.stderr).toContain(`  ✗ FAILED: SEED_DEPLOY_KEY: no readable file at ${box.home}/.ssh/seed_key\n`);
    expect(r.stderr).toContain('    hint: Create a deploy key: ssh-keygen -t ed25519 -f ~/.ssh/seed_key\n');
  });

  test('fails before applying the step when a required Secret is missing', () => {
    const box = sandbox();
    box.writeSeedKey('k');
    const r = box.run([], { FAKE_MISSING_SECRETS: 'argocd-secret' });
    expect(r.status).toBe(1);
    expect(r.calls[r.calls.length - 1]).toBe('get secret argocd-secret -n argocd');
    expect(r.calls.some((c) => c.includes('homelab-bootstrap-repo-credential'))).toBe(false);
    expect(r.stderr).toContain('  ✗ FAILED: Secret argocd/argocd-secret does not exist\n    hint: Apply the Argo CD step first.\n');
    expect(r.stderr).toContain('Stopped at step 4/4 (repo-credential).');
  });

  test('fails before applying anything when kubectl is older than the minimum', () => {
    const box = sandbox();
    box.writeSeedKey('k');
    const r = box.run([], { FAKE_KUBECTL_VERSION: 'v1.28.15' });
    expect(r.status).toBe(1);
    expect(r.calls).toEqual(['version --client -o json']);
    expect(r.stderr).toContain('  ✗ FAILED: kubectl 1.28.15 is older than 1.29\n    hint: install kubectl >= 1.29\n');
  });

  // One successful run with both inputs that only change what is checked before applying (two spawns saved).
  describe('a run with SEED_DEPLOY_KEY set and a kubectl with a vendor suffix', () => {
    let box: RunbookSandbox;
    let r: RunResult;
    beforeAll(() => {
      box = sandbox();
      fs.mkdirSync(path.join(box.home, 'other'));
      fs.writeFileSync(path.join(box.home, 'other', 'key'), 'OTHER\n');
      r = box.run([], { SEED_DEPLOY_KEY: '~/other/key', FAKE_KUBECTL_VERSION: 'v1.29.0-eks-1234' });
    });

    test('SEED_DEPLOY_KEY overrides the default path, with a quoted ~ expanded', () => {
      expect(r.status).toBe(0);
      expect(r.stdout).toContain(`✓ SEED_DEPLOY_KEY=${box.home}/other/key\n`);
      expect(fs.readFileSync(path.join(box.snapshots, '04-repo-credential', 'sshPrivateKey'), 'utf8')).toBe('OTHER\n');
    });

    test('accepts a kubectl with a vendor suffix on its version', () => {
      expect(r.status).toBe(0);
      expect(r.stdout).toContain('✓ kubectl 1.29.0 (>= 1.29)');
    });
  });

  test('fails with a hint when kubectl is not on PATH', () => {
    // GIVEN a PATH with the tools the script uses before its check, and no kubectl
    const box = sandbox();
    const bin = path.join(path.dirname(box.dir), 'no-kubectl-bin');
    fs.mkdirSync(bin);
    for (const tool of ['dirname', 'sed']) fs.symlinkSync(`/usr/bin/${tool}`, path.join(bin, tool));

    // WHEN
    const r = box.run([], { PATH: bin });

    // THEN
    expect(r.status).toBe(1);
    expect(r.calls).toEqual([]);
    expect(r.stderr).toContain('  ✗ FAILED: kubectl not found on PATH\n    hint: install kubectl >= 1.29\n');
  });
});
