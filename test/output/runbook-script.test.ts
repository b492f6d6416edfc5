import { spawnSync } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { REFERENCE_HOMELAB } from '../../lib/config/defaults';
import { REFERENCE_MANIFEST_SHA256 } from '../../lib/shared/manifest-integrity';
import { renderRunbook, RunbookOptions } from '../../lib/output/render-runbook';
import { planSteps, RenderedStep } from '../../lib/output/render-steps';
import { writeTree } from '../../lib/output/output-tree';
import { synthesizeHomelab } from '../../lib/synth/synthesize-homelab';
import {
  buildSteps, FAKE_AGE_KEY, FAKE_SSH_KEY, FixtureOptions, OPERATOR_PIN, RunbookSandbox, RunResult, stubManifests, writeRunbook,
} from '../fixtures/runbook-fixture';
import { findTool, testWith } from '../tools';

const SCRIPT = findTool('script (util-linux)', ['script']);
const SHELLCHECK = findTool('shellcheck');

const OPTIONS: RunbookOptions = { minKubectlVersion: '1.29', manifestSha256: OPERATOR_PIN };
/** Confirms the cluster without asking: the runs below have no terminal. */
const YES = ['--yes'];
/** What the fake kubectl reports of its cluster. */
const FAKE_CLUSTER = { context: 'fake-context', apiServer: 'https://fake.example:6443', kubeSystemUid: '00000000-0000-4000-8000-000000000001' };
/** The calls that read the cluster's identity before the first change. */
const IDENTITY = [
  'config current-context',
  'config view --minify -o jsonpath={.clusters[0].cluster.server}',
  'get namespace kube-system -o jsonpath={.metadata.uid}',
];
const SSA = 'apply --server-side --force-conflicts --field-manager=homelab-bootstrap';
const JOB_STATE = 'get job wait-for-db -n demo -o jsonpath={range .status.conditions[?(@.status=="True")]}{.type}{"\\t"}{.message}{"\\n"}{end}';

/** Every kubectl call of a full run on a cluster where everything is ready, in order. */
const FULL_RUN = [
  'version --client -o json',
  ...IDENTITY,
  `${SSA}-namespaces -f <dir>/01-namespaces.yaml`,
  `${SSA}-operator -k <staging>/02-operator`,
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
    jobBox.writeSeedKey();
    jobTimeout = jobBox.runAsync(YES, { FAKE_JOB_STATE: '' });
    const webhookBox = sandbox({ webhookTimeoutSeconds: 2 }, { ...OPTIONS, pollIntervalSeconds: 0.25 });
    webhookBox.writeSeedKey();
    webhookTimeout = webhookBox.runAsync(YES, { FAKE_CREATE_EXIT: '1' });
  });
  // a run that failed to start must not go unnoticed until its test (nor be an unhandled rejection)
  afterAll(() => Promise.all([jobTimeout, webhookTimeout]));

  test('a generated Secret is created once with a random value, then kept', () => {
    // GIVEN a step that needs a generated Secret, on a cluster without it
    const box = sandbox({ generatedSecret: true });
    box.writeSeedKey();
    // WHEN
    const first = box.run(YES, { FAKE_MISSING_SECRETS: 'db-key' });
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
    const second = box.run(YES);
    expect(second.status).toBe(0);
    expect(second.stdout).toContain('✓ Secret demo/db-key exists (kept)');
    expect(second.calls.filter((c) => c.startsWith('create secret'))).toEqual([]);
  });

  test('a generated Secret with encoding hex holds lower-case hex digits, two per random byte, safe in a URL', () => {
    // GIVEN the same step with a hex-encoded Secret, on a cluster without it
    const box = sandbox({ generatedSecret: 'hex' });
    box.writeSeedKey();
    // WHEN
    const run = box.run(YES, { FAKE_MISSING_SECRETS: 'db-key' });
    // THEN 48 bytes become 96 hex digits in one line (od -v: a repeated 16-byte line is not collapsed into '*')
    expect(run.status).toBe(0);
    expect(run.calls).toContain('create secret generic db-key -n demo --from-file=key=<staging>/generated-db-key');
    const value = fs.readFileSync(`${box.log}.secret`, 'utf8');
    expect(value).toMatch(/^[0-9a-f]{96}$/);
    expect(run.stdout + run.stderr).not.toContain(value);
    expect(leftoverStaging(box)).toEqual([]);
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
      // GIVEN
      box = sandbox();
      box.writeSeedKey();
      // WHEN
      first = box.run(YES);
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
      again = box.run(YES);
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
      expect(applied.key).toBe(FAKE_SSH_KEY);
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
    expect(out).toContain('  confirm the cluster: kube context, API server and kube-system UID, then ask (--yes: do not ask)\n');
    expect(out).toContain(`  needs   SEED_DEPLOY_KEY=${box.home}/.ssh/seed_key (MISSING: Create a deploy key`);
    expect(out).toContain('Dry run complete: 4 steps planned, nothing applied.');
  });

  test('--help prints the usage and exits 0 without kubectl', () => {
    const box = sandbox();
    const r = box.run(['--help']);
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(/^Usage: bootstrap.sh \[--dry-run\] \[--yes\] \[--help\]\n/);
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

  test('fails at once, while the Job still runs, when a watched object is in a state its controller gives up in (--fail-when)', () => {
    // GIVEN a wait that gives up on the Cluster phase the recording kubectl reports, and a Job that never finishes
    const box = sandbox({ jobFailWhen: ['Invalid cluster definition', 'status of clusters.example.com/db'] });
    box.writeSeedKey();

    // WHEN
    const r = box.run(YES, { FAKE_JOB_STATE: '' });

    // THEN the first poll fails it, naming the state, then shows the logs and the watched objects as for a failed Job
    expect(r.status).toBe(1);
    const phase = 'get clusters.example.com/db -n demo -o jsonpath={.status.phase}';
    const after = r.calls.slice(r.calls.indexOf(JOB_STATE));
    expect(after).toEqual([JOB_STATE, phase, 'logs job/wait-for-db -n demo --all-containers', phase,
      'get databases.example.com/app -n demo -o jsonpath={.status.message}']);
    expect(r.stderr).toContain('FAILED: Job demo/wait-for-db complete');
    expect(r.stderr).toContain('clusters.example.com/db is \'status of clusters.example.com/db\'');
  });

  test('a --fail-when state that is not reached changes nothing: the wait goes on to its own deadline', () => {
    const box = sandbox({ jobFailWhen: ['Invalid cluster definition'], jobTimeoutSeconds: 1 });
    box.writeSeedKey();
    const r = box.run(YES, { FAKE_JOB_STATE: '' });
    expect(r.status).toBe(1);
    expect(r.calls).toContain('get clusters.example.com/db -n demo -o jsonpath={.status.phase}');
    expect(r.stderr).toContain('the Job did not finish within 1s');
    expect(r.stderr).not.toContain('clusters.example.com/db is \'');
  });

  test('a Job that is complete passes without reading the --fail-when state', () => {
    const box = sandbox({ jobFailWhen: ['status of clusters.example.com/db'] });
    box.writeSeedKey();
    const r = box.run(YES);
    expect(r.status).toBe(0);
    expect(r.calls).not.toContain('get clusters.example.com/db -n demo -o jsonpath={.status.phase}');
  });

  test('fails when the wait Job fails, showing its logs, the watched objects and how to inspect', () => {
    // GIVEN
    const box = sandbox();
    box.writeSeedKey();

    // WHEN
    const r = box.run(YES, { FAKE_JOB_STATE: 'Failed\tBackoffLimitExceeded: Job has reached the specified backoff limit' });

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
    const r = box.run(YES);

    // THEN
    expect(r.status).toBe(1);
    expect(r.calls).toEqual(['version --client -o json']);
    expect(r.stderr).toContain(`  ✗ FAILED: SEED_DEPLOY_KEY: no file at ${box.home}/.ssh/seed_key\n`);
    expect(r.stderr).toContain('    hint: Create a deploy key: ssh-keygen -t ed25519 -f ~/.ssh/seed_key\n');
  });

  test('fails before applying the step when a required Secret is missing', () => {
    const box = sandbox();
    box.writeSeedKey();
    const r = box.run(YES, { FAKE_MISSING_SECRETS: 'argocd-secret' });
    expect(r.status).toBe(1);
    expect(r.calls[r.calls.length - 1]).toBe('get secret argocd-secret -n argocd');
    expect(r.calls.some((c) => c.includes('homelab-bootstrap-repo-credential'))).toBe(false);
    expect(r.stderr).toContain('  ✗ FAILED: Secret argocd/argocd-secret does not exist\n    hint: Apply the Argo CD step first.\n');
    expect(r.stderr).toContain('Stopped at step 4/4 (repo-credential).');
  });

  test('fails before applying anything when kubectl is older than the minimum', () => {
    const box = sandbox();
    box.writeSeedKey();
    const r = box.run(YES, { FAKE_KUBECTL_VERSION: 'v1.28.15' });
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
      box.writeHomeFile('other/key', FAKE_SSH_KEY);
      r = box.run(YES, { SEED_DEPLOY_KEY: '~/other/key', FAKE_KUBECTL_VERSION: 'v1.29.0-eks-1234' });
    });

    test('SEED_DEPLOY_KEY overrides the default path, with a quoted ~ expanded', () => {
      expect(r.status).toBe(0);
      expect(r.stdout).toContain(`✓ SEED_DEPLOY_KEY=${box.home}/other/key\n`);
      expect(fs.readFileSync(path.join(box.snapshots, '04-repo-credential', 'sshPrivateKey'), 'utf8')).toBe(FAKE_SSH_KEY);
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
    const r = box.run(YES, { PATH: bin });

    // THEN
    expect(r.status).toBe(1);
    expect(r.calls).toEqual([]);
    expect(r.stderr).toContain('  ✗ FAILED: kubectl not found on PATH\n    hint: install kubectl >= 1.29\n');
  });

  describe('bounded kubectl calls', () => {
    test('every kubectl call of a full run carries --request-timeout=60s', () => {
      const box = sandbox({ ageKeySecret: true, generatedSecret: true });
      box.writeSeedKey();
      box.writeAgeKey();
      const r = box.run(YES, { FAKE_MISSING_SECRETS: 'db-key' });
      expect(r.status).toBe(0);
      expect(r.rawCalls.length).toBeGreaterThan(FULL_RUN.length);
      expect(r.rawCalls.filter((c) => !c.startsWith('--request-timeout=60s '))).toEqual([]);
    });

    test('every kubectl call of a failed run, diagnostics included, carries --request-timeout', () => {
      const box = sandbox({}, { ...OPTIONS, requestTimeoutSeconds: 15 });
      box.writeSeedKey();
      const r = box.run(YES, { FAKE_JOB_STATE: 'Failed\tBackoffLimitExceeded' });
      expect(r.status).toBe(1);
      expect(r.rawCalls).toContain('--request-timeout=15s logs job/wait-for-db -n demo --all-containers');
      expect(r.rawCalls.filter((c) => !c.startsWith('--request-timeout=15s '))).toEqual([]);
    });
  });

  describe('confirming the cluster', () => {
    test('refuses without --yes when it cannot ask (no terminal), after showing the cluster, before any change', () => {
      const box = sandbox();
      box.writeSeedKey();
      const r = box.run();
      expect(r.status).toBe(1);
      expect(r.calls).toEqual(['version --client -o json', ...IDENTITY]);
      expect(r.stdout).toContain([
        '  → kube context     fake-context',
        '  → API server       https://fake.example:6443',
        '  → kube-system UID  00000000-0000-4000-8000-000000000001',
      ].join('\n'));
      expect(r.stderr).toContain('  ✗ FAILED: the cluster is not confirmed: standard input is not a terminal, so the runbook cannot ask\n'
        + '    hint: check the cluster above, then re-run with --yes to confirm it non-interactively\n');
    });

    test('--yes confirms a cluster that matches every field the config pins', () => {
      const box = sandbox({}, { ...OPTIONS, expectedCluster: FAKE_CLUSTER });
      box.writeSeedKey();
      const r = box.run(YES);
      expect(r.status).toBe(0);
      expect(r.calls).toEqual(FULL_RUN);
      expect(r.stdout).toContain('  ✓ cluster confirmed by --yes (compared with cluster.context, cluster.apiServer, cluster.kubeSystemUid)\n');
    });

    test('refuses a cluster that differs from the config, even with --yes, naming each difference', () => {
      const box = sandbox({}, { ...OPTIONS, expectedCluster: { ...FAKE_CLUSTER, context: 'homelab', kubeSystemUid: '11111111-1111-4111-8111-111111111111' } });
      box.writeSeedKey();
      const r = box.run(YES);
      expect(r.status).toBe(1);
      expect(r.calls).toEqual(['version --client -o json', ...IDENTITY]);
      expect(r.stderr).toContain([
        '  ✗ FAILED: this is not the cluster the homelab config names:',
        '    kube context is fake-context; the config expects homelab (cluster.context)',
        '    kube-system UID is 00000000-0000-4000-8000-000000000001; the config expects 11111111-1111-4111-8111-111111111111 (cluster.kubeSystemUid)',
        '    hint: switch with kubectl config use-context NAME, or correct cluster in the homelab config and synthesize again',
      ].join('\n'));
      expect(r.stderr).not.toContain('cluster.apiServer');
    });

    test('refuses a rebuilt cluster behind the same context and address (another kube-system UID)', () => {
      const box = sandbox({}, { ...OPTIONS, expectedCluster: FAKE_CLUSTER });
      box.writeSeedKey();
      const r = box.run(YES, { FAKE_KUBE_SYSTEM_UID: '22222222-2222-4222-8222-222222222222' });
      expect(r.status).toBe(1);
      expect(r.stderr).toContain('kube-system UID is 22222222-2222-4222-8222-222222222222; the config expects 00000000-0000-4000-8000-000000000001');
      expect(r.calls.some((c) => c.startsWith('apply'))).toBe(false);
    });

    test('refuses when kubectl has no current context', () => {
      const box = sandbox();
      box.writeSeedKey();
      const r = box.run(YES, { FAKE_CONTEXT: '' });
      expect(r.status).toBe(1);
      expect(r.calls).toEqual(['version --client -o json', 'config current-context']);
      expect(r.stderr).toContain('  ✗ FAILED: kubectl has no current context: the runbook does not know which cluster to change\n'
        + '    hint: select the cluster to bootstrap: kubectl config use-context NAME\n');
    });

    testWith(SCRIPT)('asks on a terminal: "y" applies, anything else stops before the first change', () => {
      const box = sandbox();
      box.writeSeedKey();
      const yes = box.runInTerminal(SCRIPT.command!, [], 'y\n');
      expect(yes.stdout).toContain('  Apply 4 steps to this cluster? [y/N] ');
      expect(yes.stdout).toContain('  ✓ cluster confirmed\n');
      expect(yes.status).toBe(0);
      expect(yes.calls).toEqual(FULL_RUN);
      const no = box.runInTerminal(SCRIPT.command!, [], 'n\n');
      expect(no.status).toBe(1);
      expect(no.stdout).toContain('  ✗ FAILED: the cluster is not confirmed (answer: n); nothing was changed\n');
      expect(no.calls).toEqual(['version --client -o json', ...IDENTITY]);
    });
  });

  describe('key files are checked before the first change', () => {
    const PUBLIC_KEY = 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIOMqqnkVzrm0SdG6UOoqKLsabgH5C9okWi0dh2l9GKJl argocd\n';
    const cases: { name: string; env?: Record<string, string>; write: (box: RunbookSandbox) => void; message: (home: string) => string }[] = [
      {
        name: 'a public key (.pub) as the deploy key',
        env: { SEED_DEPLOY_KEY: '~/.ssh/seed_key.pub' },
        write: (box) => box.writeHomeFile('.ssh/seed_key.pub', PUBLIC_KEY),
        message: (home) => `SEED_DEPLOY_KEY: ${home}/.ssh/seed_key.pub is an SSH public key\n`
          + '    hint: point it at the private key: the same path without .pub\n',
      },
      {
        name: 'public key content under a private name',
        write: (box) => box.writeSeedKey(PUBLIC_KEY),
        message: (home) => `SEED_DEPLOY_KEY: ${home}/.ssh/seed_key is an SSH public key\n`,
      },
      {
        name: 'an empty deploy key',
        write: (box) => box.writeSeedKey(''),
        message: (home) => `SEED_DEPLOY_KEY: ${home}/.ssh/seed_key is empty\n    hint: Create a deploy key`,
      },
      {
        name: 'a world-readable deploy key',
        write: (box) => box.writeSeedKey(FAKE_SSH_KEY, 0o644),
        message: (home) => `SEED_DEPLOY_KEY: ${home}/.ssh/seed_key can be read by group or others (-rw-r--r--)\n`
          + `    hint: chmod 600 ${home}/.ssh/seed_key\n`,
      },
      {
        name: 'a group-readable deploy key',
        write: (box) => box.writeSeedKey(FAKE_SSH_KEY, 0o640),
        message: (home) => `SEED_DEPLOY_KEY: ${home}/.ssh/seed_key can be read by group or others (-rw-r-----)\n`,
      },
      {
        name: 'a deploy key that is no key',
        write: (box) => box.writeSeedKey('hello\n'),
        message: (home) => `SEED_DEPLOY_KEY: ${home}/.ssh/seed_key is not an SSH private key (it has no BEGIN ... PRIVATE KEY line)\n`,
      },
      {
        name: 'a missing age key',
        write: () => undefined,
        message: (home) => `SOPS_AGE_KEY_FILE: no file at ${home}/.config/sops/age/keys.txt\n`
          + '    hint: Create an age identity: age-keygen -o ~/.config/sops/age/keys.txt\n',
      },
      {
        name: 'an age recipient instead of the identity',
        write: (box) => box.writeAgeKey('age1lvyvwawkr0mcnnnncaghunadrqkmuf9e6507x9y920xxpp866cnql7dp2z\n'),
        message: (home) => `SOPS_AGE_KEY_FILE: ${home}/.config/sops/age/keys.txt holds no age identity (a line AGE-SECRET-KEY-1...), `
          + 'only a recipient (age1...): the public half\n',
      },
      {
        name: 'an age key file with a stray line',
        write: (box) => box.writeAgeKey(`${FAKE_AGE_KEY}oops\n`),
        message: (home) => `SOPS_AGE_KEY_FILE: ${home}/.config/sops/age/keys.txt line 4 is neither an age identity (AGE-SECRET-KEY-1...), a # comment nor blank\n`,
      },
      {
        name: 'a world-readable age key',
        write: (box) => box.writeAgeKey(FAKE_AGE_KEY, 0o604),
        message: (home) => `SOPS_AGE_KEY_FILE: ${home}/.config/sops/age/keys.txt can be read by group or others (-rw----r--)\n`,
      },
    ];

    test.each(cases)('fails on $name, naming the file and the fix, and never prints the key', ({ env, write, message }) => {
      // GIVEN good files but the one under test
      const box = sandbox({ ageKeySecret: true });
      box.writeSeedKey();
      box.writeAgeKey();
      fs.rmSync(path.join(box.home, '.config'), { recursive: true });
      if (!message('').startsWith('SOPS')) box.writeAgeKey();
      write(box);

      // WHEN
      const r = box.run(YES, env);

      // THEN
      expect(r.status).toBe(1);
      expect(r.calls).toEqual(['version --client -o json']);
      expect(r.stderr).toContain(`  ✗ FAILED: ${message(box.home)}`);
      expect(r.stderr).toContain('Stopped at preflight.');
      expect(r.stdout + r.stderr).not.toContain('AGE-SECRET-KEY-1N9');
      expect(r.stdout + r.stderr).not.toContain('b3BlbnNzaC1rZXktdjEA');
    });

    test('--dry-run reports an unusable key file without stopping', () => {
      const box = sandbox();
      box.writeSeedKey(FAKE_SSH_KEY, 0o644);
      const r = box.run(['--dry-run']);
      expect(r.status).toBe(0);
      expect(r.stdout).toContain(`  needs   SEED_DEPLOY_KEY=${box.home}/.ssh/seed_key (NOT USABLE: ${box.home}/.ssh/seed_key can be read by group `
        + `or others (-rw-r--r--); chmod 600 ${box.home}/.ssh/seed_key)\n`);
    });
  });

  describe('the SOPS age key', () => {
    test('is applied as a Secret from the local file before the step, through a pipe, never printed', () => {
      // GIVEN
      const box = sandbox({ ageKeySecret: true });
      box.writeSeedKey();
      const key = box.writeAgeKey();

      // WHEN
      const r = box.run(YES);

      // THEN
      expect(r.status).toBe(0);
      expect(r.stdout).toContain(`  ✓ SOPS_AGE_KEY_FILE=${key}\n`);
      const create = `create secret generic sops-age -n argocd --from-file=keys.txt=${key} --dry-run=client -o yaml`;
      // the two sides of the pipe start together, so either may log first
      const last = r.calls.slice(-4);
      expect([last[0], [...last.slice(1, 3)].sort(), last[3]]).toEqual([
        'get secret argocd-secret -n argocd',
        [create, `${SSA}-repo-credential -f -`].sort(),
        `${SSA}-repo-credential -k <staging>/04-repo-credential`,
      ]);
      expect(fs.readFileSync(`${box.log}.secret`, 'utf8')).toBe(FAKE_AGE_KEY);
      expect(r.stdout).toMatch(/ {2}✓ applied Secret argocd\/sops-age \(key keys.txt\) from \$SOPS_AGE_KEY_FILE \(\d+s\)\n/);
      expect(r.stdout + r.stderr).not.toContain('AGE-SECRET-KEY-1N9');
    });

    test('SOPS_AGE_KEY_FILE overrides the default path', () => {
      const box = sandbox({ ageKeySecret: true });
      box.writeSeedKey();
      const key = box.writeHomeFile('age/lab.txt', FAKE_AGE_KEY);
      const r = box.run(YES, { SOPS_AGE_KEY_FILE: key });
      expect(r.status).toBe(0);
      expect(r.calls).toContain(`create secret generic sops-age -n argocd --from-file=keys.txt=${key} --dry-run=client -o yaml`);
    });

    test('--dry-run shows where the key goes', () => {
      const box = sandbox({ ageKeySecret: true });
      const r = box.run(['--dry-run']);
      expect(r.stdout).toContain('  install Secret argocd/sops-age (key keys.txt) from $SOPS_AGE_KEY_FILE, '
        + 'kubectl apply --server-side --field-manager=homelab-bootstrap-repo-credential\n');
      expect(r.stdout).toContain(`  needs   SOPS_AGE_KEY_FILE=${box.home}/.config/sops/age/keys.txt (MISSING: Create an age identity`);
    });
  });

  describe('inspect hints outlive the run', () => {
    /** The path an `inspect:` line names: the first token that is an absolute path. */
    function inspectedPaths(stderr: string): string[] {
      return [...stderr.matchAll(/^ {4}inspect: (.*)$/gm)].map((m) => m[1].split(' ').map((t) => t.replace(/^'|'$/g, '')).find((t) => t.startsWith('/'))!);
    }

    test('a failed apply of a private copy points at the step folder in the output, which still exists', () => {
      const box = sandbox();
      box.writeSeedKey();
      const r = box.run(YES, { FAKE_FAIL_APPLY: 'homelab-bootstrap-repo-credential' });
      expect(r.status).toBe(1);
      expect(r.stderr).toContain(`    inspect: ${box.dir}/04-repo-credential/kustomization.yaml (applied from a private copy of its folder `
        + 'with SEED_DEPLOY_KEY=sshPrivateKey copied in; the copy is removed on exit)\n');
      expect(leftoverStaging(box)).toEqual([]);
      const paths = inspectedPaths(r.stderr);
      expect(paths).toHaveLength(1);
      expect(paths.filter((p) => !fs.existsSync(p))).toEqual([]);
    });

    test('a failed apply of a step folder points at it', () => {
      const box = sandbox();
      box.writeSeedKey();
      const r = box.run(YES, { FAKE_FAIL_APPLY: 'homelab-bootstrap-database' });
      expect(r.status).toBe(1);
      expect(r.stderr).toContain(`    inspect: kubectl apply --server-side --force-conflicts --field-manager=homelab-bootstrap-database -f ${box.dir}/03-database.yaml\n`);
      expect(inspectedPaths(r.stderr).filter((p) => !fs.existsSync(p))).toEqual([]);
    });
  });
});

/**
 * A sandbox with the synthesized bootstrap/ of the reference homelab (git.source `source`), its key files, a fake git
 * and a fake helm, and the fake curl serving stand-ins of the release manifests the config pins; `runbook` may replace the
 * generated bootstrap.sh (it gets the steps and those pins).
 */
function homelabSandbox(source: 'github' | 'forgejo',
  runbook: (planned: RenderedStep[], manifestSha256: Record<string, string>) => string | undefined = () => undefined,
  tools: { helm: boolean } = { helm: true }): RunbookSandbox {
  const manifests = stubManifests(Object.keys(REFERENCE_MANIFEST_SHA256));
  const synthesis = synthesizeHomelab({ ...REFERENCE_HOMELAB, git: { ...REFERENCE_HOMELAB.git, source }, manifestSha256: manifests.pins });
  const files = new Map([...synthesis.tree].filter(([f]) => f.startsWith('bootstrap/')).map(([f, c]) => [f.slice('bootstrap/'.length), c]));
  const replaced = runbook(planSteps(synthesis.bootstrap.steps), manifests.pins);
  if (replaced !== undefined) files.set('bootstrap.sh', replaced);
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'runbook-'));
  writeTree(files, path.join(root, 'bootstrap'));
  const box = new RunbookSandbox(path.join(root, 'bootstrap'));
  box.serve(manifests.files);
  box.writeHomeFile('.ssh/argocd_seed', FAKE_SSH_KEY);
  box.writeHomeFile('.config/sops/age/keys.txt', FAKE_AGE_KEY);
  // the object-store credentials of forgejo-db's backups (not real keys)
  box.writeHomeFile('.config/homelab/homelab-backup-s3.env', 'ACCESS_KEY_ID=fake-id\nACCESS_SECRET_KEY=fake-secret\n');
  box.useFakeGit();
  if (tools.helm) box.useFakeHelm();
  return box;
}

/**
 * The reference homelab's runbook installs the CNI and the storage with helm (lib/output/render-runbook.ts
 * `helm_release`), against a recording helm: pinned charts, the generated values files, the confirmed kube context.
 */
/**
 * A CRD has no status conditions for a moment after it is created, and kubectl 1.30's `wait --for=condition=...`
 * then fails at once (".status.conditions accessor error") instead of waiting: the cluster test caught the
 * runbook's wait_crds failing that way against a real kube-apiserver. The runbook retries that case.
 */
describe('bootstrap.sh waits for CRDs that have no conditions yet', () => {
  test('retries kubectl wait on the accessor error, then passes', () => {
    // GIVEN CRDs whose first two waits see no conditions
    const box = homelabSandbox('github');
    // WHEN
    const r = box.run(YES, { FAKE_CRD_UNSETTLED: '2' });
    // THEN the run completes, after two retries of the first CRD wait
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    const waits = r.calls.filter((c) => c.includes('wait --for=condition=Established')).map((c) => c.replace(/ --timeout=\d+s$/, ''));
    expect(waits.length).toBe(5);
    expect(waits[0]).toBe(waits[2]);
    expect(r.stdout).toContain('✓ CRDs established: clusters.postgresql.cnpg.io, databases.postgresql.cnpg.io');
  });

  test('another error still fails at once, naming it', () => {
    const box = homelabSandbox('github');
    const r = box.run(YES, { FAKE_CRD_WAIT_ERROR: 'error: timed out waiting for the condition on customresourcedefinitions/clusters.postgresql.cnpg.io' });
    expect(r.status).not.toBe(0);
    expect(r.stderr).toContain('FAILED: CRDs established: clusters.postgresql.cnpg.io, databases.postgresql.cnpg.io');
    expect(r.stderr).toContain('timed out waiting for the condition');
    expect(r.calls.filter((c) => c.includes('wait --for=condition=Established')).length).toBe(1);
  });
});

describe('bootstrap.sh installs Cilium and Longhorn with helm', () => {
  const CONTEXT = 'admin@homelab';
  const CILIUM = `helm --kube-context ${CONTEXT} upgrade --install cilium cilium --repo https://helm.cilium.io --version 1.20.0 ` +
    '--namespace kube-system -f <dir>/02-cilium/values.yaml --timeout 600s';
  const LONGHORN = `helm --kube-context ${CONTEXT} upgrade --install longhorn longhorn --repo https://charts.longhorn.io --version 1.12.1 ` +
    '--namespace longhorn-system -f <dir>/03-longhorn/values.yaml --timeout 600s';
  const helmCalls = (r: RunResult) => r.calls.filter((c) => c.startsWith('helm '));

  describe('a full run, then a re-run', () => {
    let box: RunbookSandbox;
    let first: RunResult;
    let valuesPassed: string;
    let again: RunResult;
    beforeAll(() => {
      // GIVEN a kube context other than the fake's default, so the one helm gets is the one confirmed
      box = homelabSandbox('github');
      // WHEN
      first = box.run(YES, { FAKE_CONTEXT: CONTEXT });
      valuesPassed = fs.readFileSync(`${box.log}.helm-values`, 'utf8');
      // AND again, on the cluster it bootstrapped
      again = box.run(YES, { FAKE_CONTEXT: CONTEXT });
    });

    test('checks helm, then installs the pinned charts with the generated values files in the confirmed kube context', () => {
      expect(first.stderr).toBe('');
      expect(first.status).toBe(0);
      expect(helmCalls(first)).toEqual(['helm version --template {{.Version}}', CILIUM, LONGHORN]);
      expect(first.stdout).toContain('✓ helm 3.16.2 (>= 3.8)');
      // the last -f file helm was given is the generated one, byte for byte
      expect(valuesPassed).toBe(fs.readFileSync(path.join(box.dir, '03-longhorn', 'values.yaml'), 'utf8'));
    });

    test('helm runs after the cluster is confirmed; cilium, then its rollout, then longhorn and its waits, then CNPG', () => {
      const at = (p: string | RegExp) => {
        const i = first.calls.findIndex((c) => (typeof p === 'string' ? c === p : p.test(c)));
        expect([p, i]).not.toEqual([p, -1]);
        return i;
      };
      const order = [
        at('get namespace kube-system -o jsonpath={.metadata.uid}'),
        at(/-namespaces -f <dir>\/01-namespaces\.yaml$/),
        at(CILIUM),
        at('rollout status daemonset/cilium -n kube-system --timeout=600s'),
        at('rollout status deployment/cilium-operator -n kube-system --timeout=600s'),
        at(LONGHORN),
        at('rollout status daemonset/longhorn-manager -n longhorn-system --timeout=600s'),
        at(/^get storageclass\/longhorn -o jsonpath=\{\.metadata\.annotations\.storageclass\\\.kubernetes\\\.io\/is-default-class\}$/),
        at(/-cnpg-operator -k <staging>\/04-cnpg-operator$/),
      ];
      expect(order).toEqual([...order].sort((a, b) => a - b));
      expect(first.stdout).toContain('✓ StorageClass longhorn exists and is the default');
    });

    test('a re-run is the same idempotent upgrade --install', () => {
      expect(again.status).toBe(0);
      expect(helmCalls(again)).toEqual(helmCalls(first));
      // the same calls (sorted: the two kubectl of a pipe, e.g. the age key's create | apply, log in either order)
      expect([...again.calls].sort()).toEqual([...first.calls].sort());
    });
  });

  test('--dry-run shows the helm calls and runs no helm', () => {
    const box = homelabSandbox('github');
    const r = box.run(['--dry-run']);
    expect(r.status).toBe(0);
    expect(r.calls).toEqual([]);
    expect(r.stdout).toContain('  check   helm >= 3.8 on PATH\n');
    expect(r.stdout).toContain('  helm    helm --kube-context <confirmed> upgrade --install cilium cilium --repo https://helm.cilium.io ' +
      '--version 1.20.0 --namespace kube-system -f 02-cilium/values.yaml --timeout 600s (at most 660s)\n');
    expect(r.stdout.indexOf('[2/10] cilium')).toBeLessThan(r.stdout.indexOf('[3/10] longhorn'));
    expect(r.stdout.indexOf('[3/10] longhorn')).toBeLessThan(r.stdout.indexOf('[4/10] cnpg-operator'));
  });

  test('fails before any change when helm is not on PATH, naming the fix', () => {
    const r = homelabSandbox('github', undefined, { helm: false }).run(YES);
    expect(r.status).toBe(1);
    expect(r.stderr).toContain('✗ FAILED: helm not found on PATH\n    hint: install helm >= 3.8 (https://helm.sh/docs/intro/install/)');
    expect(r.calls).toEqual(['version --client -o json']);
  });

  test('fails before any change when helm is older than the floor, naming the fix', () => {
    const r = homelabSandbox('github').run(YES, { FAKE_HELM_VERSION: 'v3.7.2' });
    expect(r.status).toBe(1);
    expect(r.stderr).toContain('✗ FAILED: helm 3.7.2 is older than 3.8\n    hint: install helm >= 3.8 (https://helm.sh/docs/intro/install/)');
    expect(r.calls).toEqual(['version --client -o json', 'helm version --template {{.Version}}']);
  });

  test('a failed release stops the run at its step with helm\'s error and how to inspect the release', () => {
    const r = homelabSandbox('github').run(YES, { FAKE_CONTEXT: CONTEXT, FAKE_HELM_FAIL: 'longhorn' });
    expect(r.status).toBe(1);
    expect(r.stderr).toContain('Error: UPGRADE FAILED: context deadline exceeded');
    expect(r.stderr).toContain(`helm --kube-context ${CONTEXT} status longhorn -n longhorn-system`);
    expect(r.stderr).toContain('Stopped at step 3/10 (longhorn)');
    expect(r.calls[r.calls.length - 1]).toBe(LONGHORN);
  });
});

/**
 * The runbook of the reference homelab after the cutover (`git.source: 'forgejo'`), as synthesized, run on a bare
 * cluster: the GitHub seed first, then Forgejo, then the mirror check, and only then the flip.
 */
describe('bootstrap.sh after the cutover: a rebuild from the GitHub seed', () => {
  const SEED = 'git@github.com:homelab-owner/homelab.git';
  const HEAD = 'a'.repeat(40);
  const OLD = 'b'.repeat(40);
  const MIRROR_API = 'http://127.0.0.1:3000/api/v1/repos/homelab-owner/homelab/branches/main';
  const LS_REMOTE = `git ls-remote ${SEED} refs/heads/main`;
  const EXEC = 'exec -i -n cicd deploy/forgejo -- sh -c IFS= read -r t; wget -q -O - --header "Authorization: token $t" "$1" sh ' + MIRROR_API;
  const TOKEN = 'forgejo-read-token-value';
  const FORGEJO_URL = 'http://forgejo-http.cicd.svc.cluster.local:3000/homelab-owner/homelab.git';
  /** How skip_when asks for the live root app's repository before step 09. */
  const GET_ROOT = 'get applications.argoproj.io/root -o jsonpath={.spec.source.repoURL} -n argocd';
  const SEED_ROOT_APPLY = /-argocd-seed-root -f <dir>\/10-argocd-seed-root\.yaml$/;

  const callIndex = (calls: readonly string[], pattern: RegExp) => calls.findIndex((c) => pattern.test(c));

  describe('a bare cluster where the mirror is current', () => {
    let box: RunbookSandbox;
    let run: RunResult;
    beforeAll(() => {
      // GIVEN the token made in the new Forgejo, and Forgejo's mirror at GitHub's head
      box = homelabSandbox('forgejo');
      box.writeHomeFile('.config/homelab/forgejo-read-token', `${TOKEN}\n`);
      // WHEN
      run = box.run(YES, { FAKE_SEED_COMMIT: HEAD, FAKE_FORGEJO_COMMIT: HEAD });
    });

    test('seeds from GitHub, brings Forgejo up, verifies the mirror, then flips', () => {
      expect(run.stderr).toBe('');
      expect(run.status).toBe(0);
      const at = (p: RegExp) => {
        const i = callIndex(run.calls, p);
        expect([p, i]).not.toEqual([p, -1]);
        return i;
      };
      const order = [
        at(/-forgejo -f <dir>\/07-forgejo\.yaml$/),
        at(/^rollout status deployment\/forgejo -n cicd/),
        at(/-argocd-seed-credential -k <staging>\/09-argocd-seed-credential$/),
        at(/-argocd-seed-root -f <dir>\/10-argocd-seed-root\.yaml$/),
        run.calls.indexOf(LS_REMOTE),
        run.calls.indexOf(EXEC),
        at(/-argocd-repo-credential -k <staging>\/11-argocd-repo-credential$/),
        at(/-argocd-root -f <dir>\/12-argocd-root\.yaml$/),
      ];
      expect(order).toEqual([...order].sort((a, b) => a - b));
      expect(order[4]).toBeGreaterThan(-1);
      // the flip is the last thing the runbook does
      expect(run.calls[run.calls.length - 1]).toMatch(/-argocd-root -f <dir>\/12-argocd-root\.yaml$/);
      expect(run.stdout).toContain(`✓ Forgejo mirror homelab-owner/homelab holds the commit of main on ${SEED} (${HEAD})`);
      expect(run.stdout).toMatch(/Bootstrap complete: 12 steps applied and ready.\n$/);
    });

    test('asks for the root app before the seed, and applies the seed since there is none', () => {
      const ask = run.calls.indexOf(GET_ROOT);
      expect(ask).toBeGreaterThan(callIndex(run.calls, /-argocd-seed-credential /));
      expect(ask).toBeLessThan(callIndex(run.calls, SEED_ROOT_APPLY));
      expect(run.rawCalls[ask]).toBe(`--request-timeout=60s ${GET_ROOT}`);
      expect(run.stdout).toContain('  → not skipped: applications.argoproj.io/root in argocd does not exist\n');
      expect(run.stdout).not.toContain('✓ skipped');
    });

    test('the seed root app reads GitHub and the flipped one Forgejo', () => {
      const seedRoot = fs.readFileSync(path.join(box.dir, '10-argocd-seed-root.yaml'), 'utf8');
      const root = fs.readFileSync(path.join(box.dir, '12-argocd-root.yaml'), 'utf8');
      expect(seedRoot).toContain(`repoURL: ${SEED}`);
      expect(seedRoot).toContain('path: k8s/generated/argocd/seed-apps');
      expect(root).toContain('repoURL: http://forgejo-http.cicd.svc.cluster.local:3000/homelab-owner/homelab.git');
      expect(fs.readFileSync(path.join(box.dir, '09-argocd-seed-credential', 'kustomization.yaml'), 'utf8')).toContain(`url=${SEED}`);
    });

    test('the seed is read with the deploy key; the token goes to Forgejo on stdin, never on a command line', () => {
      expect(fs.readFileSync(`${box.log}.git-ssh`, 'utf8')).toContain(`ssh -i ${path.join(box.home, '.ssh/argocd_seed')} -o IdentitiesOnly=yes`);
      expect(fs.readFileSync(`${box.log}.exec-stdin`, 'utf8')).toBe(`${TOKEN}\n`);
      expect(run.rawCalls.join('\n') + run.stdout + run.stderr).not.toContain(TOKEN);
    });
  });

  describe('a re-run on a cluster whose root app already reads Forgejo', () => {
    let box: RunbookSandbox;
    beforeAll(() => {
      box = homelabSandbox('forgejo');
      box.writeHomeFile('.config/homelab/forgejo-read-token', `${TOKEN}\n`);
    });

    test('never points the root app back at GitHub: the seed root is skipped, the mirror still verified, the same Forgejo root re-applied', () => {
      // WHEN the live root app reads Forgejo and the mirror is current
      const r = box.run(YES, { FAKE_ROOT_REPO_URL: FORGEJO_URL, FAKE_SEED_COMMIT: HEAD, FAKE_FORGEJO_COMMIT: HEAD });
      // THEN
      expect(r.stderr).toBe('');
      expect(r.status).toBe(0);
      expect(r.calls.filter((c) => SEED_ROOT_APPLY.test(c) || /-argocd-seed-root /.test(c))).toEqual([]);
      expect(r.stdout).toContain('[10/12] argocd-seed-root');
      expect(r.stdout).toContain('  ✓ skipped: the root app already reads the verified Forgejo mirror ' +
        `({.spec.source.repoURL} of applications.argoproj.io/root in argocd is ${FORGEJO_URL})\n`);
      const order = [
        callIndex(r.calls, /-argocd-seed-credential -k /),
        r.calls.indexOf(GET_ROOT),
        r.calls.indexOf(LS_REMOTE),
        r.calls.indexOf(EXEC),
        callIndex(r.calls, /-argocd-repo-credential -k /),
        callIndex(r.calls, /-argocd-root -f <dir>\/12-argocd-root\.yaml$/),
      ];
      expect(order.every((i) => i > -1)).toBe(true);
      expect(order).toEqual([...order].sort((a, b) => a - b));
      expect(r.stdout).toMatch(/Bootstrap complete: 12 steps ready: 11 applied, 1 skipped \(the cluster was already past them\).\n$/);
    });

    test('a root app that still reads the GitHub seed (a run interrupted before the flip) gets the seed applied again', () => {
      const r = box.run(YES, { FAKE_ROOT_REPO_URL: SEED, FAKE_SEED_COMMIT: HEAD, FAKE_FORGEJO_COMMIT: HEAD });
      expect(r.status).toBe(0);
      expect(callIndex(r.calls, SEED_ROOT_APPLY)).toBeGreaterThan(r.calls.indexOf(GET_ROOT));
      expect(r.stdout).toContain(`  → not skipped: {.spec.source.repoURL} of applications.argoproj.io/root in argocd is ${SEED}, not ${FORGEJO_URL}\n`);
      expect(r.stdout).toMatch(/Bootstrap complete: 12 steps applied and ready.\n$/);
    });

    test('fails when the root app cannot be read, naming the error, before applying the seed or anything after it', () => {
      const error = 'Unable to connect to the server: dial tcp 10.0.0.1:6443: i/o timeout';
      const r = box.run(YES, { FAKE_GET_APP_ERROR: error, FAKE_SEED_COMMIT: HEAD, FAKE_FORGEJO_COMMIT: HEAD });
      expect(r.status).toBe(1);
      expect(r.stderr).toContain('✗ FAILED: read {.spec.source.repoURL} of applications.argoproj.io/root in argocd, ' +
        'to tell whether the cluster is already past this step');
      expect(r.stderr).toContain(`    ${error}\n`);
      expect(r.stderr).toContain('inspect: kubectl get applications.argoproj.io/root -o \'jsonpath={.spec.source.repoURL}\' -n argocd');
      expect(r.stderr).toContain('Stopped at step 10/12 (argocd-seed-root)');
      expect(r.calls[r.calls.length - 1]).toBe(GET_ROOT);
      expect(r.stdout).not.toContain('skipped');
    });
  });

  test('FORGEJO_READ_TOKEN is not needed before Forgejo exists: the run stops at the flip step, after Forgejo', () => {
    // GIVEN no token file (Forgejo does not exist yet, so neither does its token)
    const box = homelabSandbox('forgejo');
    // WHEN
    const r = box.run(YES, { FAKE_SEED_COMMIT: HEAD, FAKE_FORGEJO_COMMIT: HEAD });
    // THEN the preflight passes, GitHub seeds Argo CD, and the run stops before the mirror check and the flip
    expect(r.status).toBe(1);
    expect(r.stdout).not.toContain('FORGEJO_READ_TOKEN');
    expect(r.stderr).toContain('✗ FAILED: FORGEJO_READ_TOKEN: no file at');
    expect(r.stderr).toContain('Stopped at step 11/12 (argocd-repo-credential)');
    expect(callIndex(r.calls, /-argocd-seed-root -f /)).toBeGreaterThan(-1);
    expect(r.calls.filter((c) => /^git |^exec |-argocd-repo-credential |-argocd-root /.test(c))).toEqual([]);
  });

  describe('stops before the flip, naming why', () => {
    // a two-second mirror check polled every 0.25s (the synthesized check waits a mirror interval and more).
    // Not one second: bash's $SECONDS counts whole seconds, so a one-second deadline can pass after one poll
    // when the check starts just before a second ticks over (CI saw exactly that).
    const short = (planned: RenderedStep[], manifestSha256: Record<string, string>) =>
      renderRunbook(planned, { minKubectlVersion: '1.29', pollIntervalSeconds: 0.25, manifestSha256 })
      .replace(/^verify_mirror \d+ /m, 'verify_mirror 2 ');
    let box: RunbookSandbox;
    beforeAll(() => {
      box = homelabSandbox('forgejo', short);
      box.writeHomeFile('.config/homelab/forgejo-read-token', `${TOKEN}\n`);
    });
    const noFlip = (r: RunResult) => {
      expect(r.status).toBe(1);
      expect(r.stderr).toContain('Not flipping the root app to Forgejo: it keeps reading the GitHub seed.');
      expect(r.stderr).toContain('Stopped at step 11/12 (argocd-repo-credential)');
      expect(r.calls.filter((c) => /-argocd-repo-credential |-argocd-root /.test(c))).toEqual([]);
      // it polled: GitHub and Forgejo were asked more than once
      expect(r.calls.filter((c) => c === EXEC).length).toBeGreaterThan(1);
    };

    test('when the mirror is missing', () => {
      const r = box.run(YES, { FAKE_SEED_COMMIT: HEAD });
      noFlip(r);
      expect(r.stderr).toContain('the mirror is missing: Forgejo has no repository homelab-owner/homelab with a branch main');
      expect(r.stderr).toContain('hint: Argo CD\'s forgejo-mirror Application, synced by the root app from the GitHub seed, creates the pull-mirror');
    });

    test('when the mirror is stale', () => {
      const r = box.run(YES, { FAKE_SEED_COMMIT: HEAD, FAKE_FORGEJO_COMMIT: OLD });
      noFlip(r);
      expect(r.stderr).toContain(`the mirror is stale: Forgejo's main is at ${OLD}, the GitHub seed's at ${HEAD}`);
    });

    test('when the root app already reads Forgejo: the seed is skipped, the verify step still refuses a stale mirror', () => {
      const r = box.run(YES, { FAKE_ROOT_REPO_URL: FORGEJO_URL, FAKE_SEED_COMMIT: HEAD, FAKE_FORGEJO_COMMIT: OLD });
      expect(r.status).toBe(1);
      expect(r.stdout).toContain('  ✓ skipped: the root app already reads the verified Forgejo mirror');
      expect(r.calls.filter((c) => /-argocd-seed-root |-argocd-repo-credential |-argocd-root /.test(c))).toEqual([]);
      expect(r.stderr).toContain(`the mirror is stale: Forgejo's main is at ${OLD}, the GitHub seed's at ${HEAD}`);
      expect(r.stderr).toContain('Not re-applying the root app: it is left as this run found it ' +
        '(skipped: the root app already reads the verified Forgejo mirror).');
      expect(r.stderr).not.toContain('it keeps reading the GitHub seed');
      expect(r.stderr).toContain('Stopped at step 11/12 (argocd-repo-credential)');
    });

    test('when the seed cannot be read, at once', () => {
      const r = box.run(YES, { FAKE_SEED_UNREACHABLE: '1', FAKE_FORGEJO_COMMIT: HEAD });
      expect(r.status).toBe(1);
      expect(r.stderr).toContain(`✗ FAILED: read main from the GitHub seed ${SEED} with $SEED_DEPLOY_KEY`);
      expect(r.stderr).toContain('Permission denied (publickey)');
      expect(r.calls.filter((c) => c === EXEC || /-argocd-root /.test(c))).toEqual([]);
    });
  });

  test('--dry-run plans the mirror check between the seed and the flip', () => {
    const box = homelabSandbox('forgejo');
    const r = box.run(['--dry-run']);
    expect(r.status).toBe(0);
    const out = r.stdout;
    // the token is a need of the flip step, not of the preflight
    const token = `needs   FORGEJO_READ_TOKEN=${path.join(box.home, '.config/homelab/forgejo-read-token')} (MISSING`;
    expect(out.indexOf(token)).toBeGreaterThan(out.indexOf('[11/12] argocd-repo-credential'));
    expect(out.indexOf('[10/12] argocd-seed-root')).toBeLessThan(out.indexOf('verify  Forgejo mirror homelab-owner/homelab holds the commit of main'));
    expect(out.indexOf('verify  Forgejo mirror')).toBeLessThan(out.indexOf('argocd-root -f 12-argocd-root.yaml'));
    expect(out.indexOf('[11/12] argocd-repo-credential')).toBeGreaterThan(out.indexOf('[10/12] argocd-seed-root'));
    // the seed root is planned as skipped when the root app already reads Forgejo, and applied otherwise
    const skip = `  skip    when {.spec.source.repoURL} of applications.argoproj.io/root in argocd is ${FORGEJO_URL} ` +
      '(the root app already reads the verified Forgejo mirror); otherwise:\n';
    expect(out).toContain(`[10/12] argocd-seed-root: the homelab AppProject and the root app-of-apps reading the GitHub seed, until the Forgejo mirror is verified\n${skip}` +
      '  apply   kubectl apply --server-side --force-conflicts --field-manager=homelab-bootstrap-argocd-seed-root -f 10-argocd-seed-root.yaml\n');
  });

  test('before the cutover the path is unchanged: GitHub credential, then the root app, and no mirror check', () => {
    const r = homelabSandbox('github').run(YES);
    expect(r.status).toBe(0);
    expect(r.calls.slice(-2)).toEqual([
      `${SSA}-argocd-repo-credential -k <staging>/09-argocd-repo-credential`,
      `${SSA}-argocd-root -f <dir>/10-argocd-root.yaml`,
    ]);
    expect(r.calls.filter((c) => /^git |^exec /.test(c))).toEqual([]);
    expect(r.stdout).toMatch(/Bootstrap complete: 10 steps applied and ready.\n$/);
  });

  testWith(SHELLCHECK)('the post-cutover script is shellcheck-clean', () => {
    const box = homelabSandbox('forgejo');
    const r = spawnSync(SHELLCHECK.command!, ['--shell=bash', '--severity=style', path.join(box.dir, 'bootstrap.sh')], { encoding: 'utf8' });
    expect(r.stdout + r.stderr).toBe('');
    expect(r.status).toBe(0);
  });
});
