import { spawnSync } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { Chart, Duration, Testing } from 'cdk8s';
import { BootstrapStep } from '../../../lib/constructs/bootstrap/bootstrap-step';
import { CnpgCluster } from '../../../lib/constructs/cnpg/cnpg-cluster';
import {
  CHECK_TOKEN_SCRIPT, ENSURE_ADMIN_SCRIPT, ForgejoAdminJob, ForgejoAdminJobProps, ISSUE_TOKEN_SCRIPT, STORE_SCRIPT,
} from '../../../lib/constructs/forgejo/forgejo-admin-job';
import { CURL_IMAGE } from '../../../lib/constructs/forgejo/forgejo-mirror-job';
import { ForgejoServer } from '../../../lib/constructs/forgejo/forgejo-server';
import { IMAGES } from '../../../lib/shared/pins';
import { undefinedReferences } from '../../fixtures/env-references';
import { findTool, testWith } from '../../tools';

const SHELLCHECK = findTool('shellcheck');

function makeForgejo(chart: Chart = Testing.chart()): { chart: Chart; forgejo: ForgejoServer } {
  const cluster = new CnpgCluster(chart, 'ForgejoDb', { name: 'forgejo-db', namespace: 'cicd', initdbDatabase: 'forgejo' });
  const forgejo = new ForgejoServer(chart, 'Forgejo', { namespace: 'cicd', database: { cluster, pgName: 'forgejo', owner: 'forgejo' } });
  return { chart, forgejo };
}

function find(objects: any[], kind: string, name: string): any {
  const found = objects.find((o) => o.kind === kind && o.metadata.name === name);
  if (!found) throw new Error(`no ${kind} '${name}'`);
  return found;
}

const envOf = (c: any) => Object.fromEntries(c.env.map((e: any) => [e.name, e.value ?? e.valueFrom]));

describe('ForgejoAdminJob', () => {
  test('defaults', () => {
    // GIVEN
    const { chart, forgejo } = makeForgejo();

    // WHEN
    const admin = new ForgejoAdminJob(chart, 'Admin', { forgejo });

    // THEN
    expect(admin.name).toBe('forgejo-provision');
    expect(admin.namespace).toBe('cicd');
    expect(admin.username).toBe('forgejo-admin');
    expect(admin.email).toBe('forgejo-admin@localhost');
    expect(admin.passwordSecret).toBe('forgejo-admin');
    expect(admin.tokenSecret).toEqual({ name: 'forgejo-admin-token', key: 'token' });
    expect(admin.tokenScopes).toEqual(['read:user', 'write:organization', 'write:repository']);
    expect(admin.repoOwner).toBeUndefined();
    expect(admin.activeDeadline.toSeconds()).toBe(900);

    const objects = Testing.synth(chart);
    const job = find(objects, 'Job', 'forgejo-provision');
    expect(job.metadata.namespace).toBe('cicd');
    expect(job.spec.activeDeadlineSeconds).toBe(900);
    const pod = job.spec.template.spec;
    expect(pod.initContainers.map((c: any) => [c.name, c.image])).toEqual([
      ['ensure-admin', IMAGES.forgejo], ['check-token', CURL_IMAGE], ['issue-token', IMAGES.forgejo],
    ]);
    expect(pod.containers.map((c: any) => [c.name, c.image])).toEqual([['store', CURL_IMAGE]]);
    const [ensure, check, issue] = pod.initContainers;
    expect(envOf(ensure)).toMatchObject({
      ADMIN_USER: 'forgejo-admin', ADMIN_EMAIL: 'forgejo-admin@localhost',
      ADMIN_PASSWORD: { secretKeyRef: { name: 'forgejo-admin', key: 'password' } },
      // The same configuration as the server, secrets by reference.
      FORGEJO__database__PASSWD: { secretKeyRef: { name: 'forgejo-db-app', key: 'password' } },
      FORGEJO__security__SECRET_KEY: { secretKeyRef: { name: 'forgejo-secret-key', key: 'secret-key' } },
    });
    expect(envOf(check)).toMatchObject({ STORED_TOKEN: { secretKeyRef: { name: 'forgejo-admin-token', key: 'token' } } });
    expect(envOf(issue)).toMatchObject({ ISSUE_NAME: 'forgejo-provision-mirror', ISSUE_SCOPES: 'read:user,write:organization,write:repository' });
    expect(envOf(pod.containers[0])).toMatchObject({ TARGET_NAME: 'forgejo-admin-token', TARGET_KEY: 'token', REPO_OWNER: 'forgejo-admin' });
  });

  test('all props', () => {
    // GIVEN
    const { chart, forgejo } = makeForgejo();
    const props: Required<ForgejoAdminJobProps> = {
      forgejo,
      username: 'root-user',
      email: 'root@home.arpa',
      passwordSecret: 'fj-admin-password',
      tokenSecret: { name: 'fj-token', key: 'api' },
      tokenScopes: ['write:repository'],
      repoOwner: 'acme',
      name: 'provision',
      activeDeadline: Duration.minutes(5),
    };

    // WHEN
    const admin = new ForgejoAdminJob(chart, 'Admin', props);

    // THEN
    expect(admin.username).toBe('root-user');
    expect(admin.email).toBe('root@home.arpa');
    expect(admin.passwordSecret).toBe('fj-admin-password');
    expect(admin.tokenSecret).toEqual({ name: 'fj-token', key: 'api' });
    expect(admin.tokenScopes).toEqual(['write:repository']);
    expect(admin.repoOwner).toBe('acme');
    expect(admin.name).toBe('provision');
    expect(admin.activeDeadline.toSeconds()).toBe(300);
    const objects = Testing.synth(chart);
    const pod = find(objects, 'Job', 'provision').spec.template.spec;
    expect(envOf(pod.initContainers[0])).toMatchObject({ ADMIN_USER: 'root-user', ADMIN_EMAIL: 'root@home.arpa',
      ADMIN_PASSWORD: { secretKeyRef: { name: 'fj-admin-password', key: 'password' } } });
    expect(envOf(pod.initContainers[2])).toMatchObject({ ISSUE_NAME: 'provision-mirror', ISSUE_SCOPES: 'write:repository' });
    expect(envOf(pod.containers[0])).toMatchObject({ TARGET_NAME: 'fj-token', TARGET_KEY: 'api', REPO_OWNER: 'acme',
      STORED_TOKEN: { secretKeyRef: { name: 'fj-token', key: 'api' } } });
    expect(find(objects, 'Role', 'provision').rules[0].resourceNames).toEqual(['fj-token']);
  });

  test('least privilege: get and patch on the token Secret only; only the store container has an API token', () => {
    const { chart, forgejo } = makeForgejo();
    new ForgejoAdminJob(chart, 'Admin', { forgejo });
    const objects = Testing.synth(chart);
    expect(find(objects, 'Role', 'forgejo-provision').rules).toEqual([
      { apiGroups: [''], resources: ['secrets'], resourceNames: ['forgejo-admin-token'], verbs: ['get', 'patch'] },
    ]);
    expect(find(objects, 'RoleBinding', 'forgejo-provision').subjects).toEqual([{ kind: 'ServiceAccount', name: 'forgejo-provision', namespace: 'cicd' }]);
    expect(find(objects, 'ServiceAccount', 'forgejo-provision').automountServiceAccountToken).toBe(false);
    const pod = find(objects, 'Job', 'forgejo-provision').spec.template.spec;
    expect(pod.automountServiceAccountToken).toBe(false);
    expect(pod.serviceAccountName).toBe('forgejo-provision');
    const tokenMounts = [...pod.initContainers, ...pod.containers]
      .filter((c: any) => c.volumeMounts.some((m: any) => m.name === 'api-token')).map((c: any) => c.name);
    expect(tokenMounts).toEqual(['store']);
  });

  test('restricted Pod Security in every container', () => {
    const { chart, forgejo } = makeForgejo();
    new ForgejoAdminJob(chart, 'Admin', { forgejo });
    const pod = find(Testing.synth(chart), 'Job', 'forgejo-provision').spec.template.spec;
    expect(pod.securityContext).toMatchObject({ runAsNonRoot: true, seccompProfile: { type: 'RuntimeDefault' } });
    for (const c of [...pod.initContainers, ...pod.containers]) {
      expect(c.securityContext).toMatchObject({ allowPrivilegeEscalation: false, readOnlyRootFilesystem: true, runAsNonRoot: true,
        capabilities: { drop: ['ALL'] } });
    }
  });

  test('inside a bootstrap step: password and token placeholder generated once, then the Job is waited for', () => {
    // GIVEN
    const app = Testing.app();
    const step = new BootstrapStep(app, 'Forgejo', { stepName: 'forgejo', summary: 'x' });
    const { forgejo } = makeForgejo(step);

    // WHEN
    step.addComponent(forgejo);
    const admin = new ForgejoAdminJob(step, 'Admin', { forgejo });
    admin.node.addDependency(forgejo);
    step.addComponent(admin);

    // THEN
    expect(step.preconditions).toEqual([
      { kind: 'generated-secret', namespace: 'cicd', name: 'forgejo-redis-password', key: 'password', bytes: 32, encoding: 'hex' },
      { kind: 'generated-secret', namespace: 'cicd', name: 'forgejo-secret-key', key: 'secret-key', bytes: 48 },
      { kind: 'generated-secret', namespace: 'cicd', name: 'forgejo-admin', key: 'password', bytes: 24 },
      { kind: 'generated-secret', namespace: 'cicd', name: 'forgejo-admin-token', key: 'token', bytes: 20 },
    ]);
    expect(step.waits.map((w) => w.kind)).toEqual(['rollout', 'rollout', 'job-complete']);
    expect(step.waits[2]).toEqual({ kind: 'job-complete', namespace: 'cicd', job: 'forgejo-provision', timeoutSeconds: 900, watched: [] });
  });

  test('the Forgejo containers get the server\'s env in the server\'s order: the Redis password before the URLs that expand it', () => {
    const { chart, forgejo } = makeForgejo();
    new ForgejoAdminJob(chart, 'Admin', { forgejo });
    const objects = Testing.synth(chart);
    const serverEnv = find(objects, 'Deployment', 'forgejo').spec.template.spec.containers[0].env;
    const pod = find(objects, 'Job', 'forgejo-provision').spec.template.spec;
    const forgejoContainers = [...pod.initContainers, ...pod.containers].filter((c: any) => c.image === IMAGES.forgejo);
    expect(forgejoContainers.map((c: any) => c.name)).toEqual(['ensure-admin', 'issue-token']);
    for (const c of forgejoContainers) {
      expect(undefinedReferences(c.env)).toEqual([]);
      const configured = c.env.filter((e: any) => serverEnv.some((s: any) => s.name === e.name));
      expect(configured).toEqual(serverEnv);
      expect(envOf(c).FORGEJO__queue__CONN_STR).toBe('redis://:$(REDIS_PASSWORD)@forgejo-redis.cicd.svc:6379/0');
    }
  });

  test('the Job comes after the Forgejo Deployment and after its RoleBinding', () => {
    const { chart, forgejo } = makeForgejo();
    const admin = new ForgejoAdminJob(chart, 'Admin', { forgejo });
    admin.node.addDependency(forgejo);
    const order = Testing.synth(chart).map((o) => `${o.kind}/${o.metadata.name}`);
    expect(order.indexOf('Job/forgejo-provision')).toBeGreaterThan(order.indexOf('Deployment/forgejo'));
    expect(order.indexOf('Job/forgejo-provision')).toBeGreaterThan(order.indexOf('RoleBinding/forgejo-provision'));
  });

  test('throws for the reserved user name admin', () => {
    const { chart, forgejo } = makeForgejo();
    expect(() => new ForgejoAdminJob(chart, 'Admin', { forgejo, username: 'admin' }))
      .toThrow('test/Admin: \'username\' must be a Forgejo user name other than \'admin\' (letters, digits, \'-\', \'_\', \'.\'), got \'admin\'.');
  });

  test('throws for an e-mail address without @', () => {
    const { chart, forgejo } = makeForgejo();
    expect(() => new ForgejoAdminJob(chart, 'Admin', { forgejo, email: 'root' }))
      .toThrow('test/Admin: \'email\' must be an e-mail address such as \'admin@home.arpa\', got \'root\'.');
  });

  test('throws for a repoOwner that is not a name', () => {
    const { chart, forgejo } = makeForgejo();
    expect(() => new ForgejoAdminJob(chart, 'Admin', { forgejo, repoOwner: 'a/b' }))
      .toThrow('test/Admin: \'repoOwner\' must be a Forgejo organisation name (letters, digits, \'-\', \'_\', \'.\'), got \'a/b\'.');
  });

  test('throws for empty or malformed token scopes', () => {
    const { chart, forgejo } = makeForgejo();
    expect(() => new ForgejoAdminJob(chart, 'Admin', { forgejo, tokenScopes: [] }))
      .toThrow('test/Admin: \'tokenScopes\' must be non-empty scopes such as \'write:repository\', got [].');
    expect(() => new ForgejoAdminJob(chart, 'Admin2', { forgejo, tokenScopes: ['repo'] }))
      .toThrow('test/Admin2: \'tokenScopes\' must be non-empty scopes such as \'write:repository\', got [repo].');
  });
});

testWith(SHELLCHECK)('the provisioning scripts are shellcheck-clean as POSIX sh', () => {
  for (const script of [ENSURE_ADMIN_SCRIPT, CHECK_TOKEN_SCRIPT, ISSUE_TOKEN_SCRIPT, STORE_SCRIPT]) {
    const r = spawnSync(SHELLCHECK.command!, ['--shell=sh', '--severity=style', '-'], { input: script, encoding: 'utf8' });
    expect(r.stdout).toBe('');
    expect(r.status).toBe(0);
  }
});

describe('the provisioning scripts, against stub forgejo and curl', () => {
  // Each stub records its argv (one line per call) and answers from the environment.
  const FORGEJO_STUB = `#!/bin/sh
echo "$*" >> "$STUB_DIR/forgejo-argv"
case "$*" in
  *"user list"*) printf 'ID   Username   Email   IsActive IsAdmin 2FA\\n%s\\n' "$STUB_USERS" ;;
  *generate-access-token*) printf '%s' "$STUB_NEW_TOKEN" ;;
esac
`;
  const INI_STUB = '#!/bin/sh\necho "$*" >> "$STUB_DIR/ini-argv"\n';
  const CURL_STUB = `#!/bin/sh
dir=$STUB_DIR
n=$(cat "$dir/calls" 2>/dev/null || echo 0); n=$((n + 1)); echo "$n" > "$dir/calls"
echo "$*" >> "$dir/curl-argv"
out=/dev/null
while [ $# -gt 0 ]; do
  case "$1" in --output) out=$2; shift ;; --data-binary) cat > "$dir/stdin-$n" ;; esac
  shift
done
printf '%s' "$STUB_BODY" > "$out"
echo "$STUB_STATUSES" | cut -d' ' -f"$n" | tr -d '\\n'
`;

  function run(script: string, env: Record<string, string>) {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'provision-stub-'));
    for (const d of ['bin', 'home', 'shared', 'sa']) fs.mkdirSync(path.join(dir, d));
    fs.writeFileSync(path.join(dir, 'bin', 'forgejo'), FORGEJO_STUB, { mode: 0o755 });
    fs.writeFileSync(path.join(dir, 'bin', 'environment-to-ini'), INI_STUB, { mode: 0o755 });
    fs.writeFileSync(path.join(dir, 'bin', 'curl'), CURL_STUB, { mode: 0o755 });
    fs.writeFileSync(path.join(dir, 'sa', 'token'), 'kube-SA-TOKEN');
    for (const [f, content] of Object.entries(env).filter(([k]) => k.startsWith('file:'))) {
      fs.writeFileSync(path.join(dir, 'shared', f.slice(5)), content);
    }
    const result = spawnSync('sh', ['-c', script], {
      encoding: 'utf8',
      env: {
        PATH: `${path.join(dir, 'bin')}:${process.env.PATH}`, STUB_DIR: dir, HOME: path.join(dir, 'home'),
        SHARED_DIR: path.join(dir, 'shared'), SA_DIR: path.join(dir, 'sa'), FORGEJO_URL: 'http://forgejo:3000',
        ADMIN_USER: 'forgejo-admin', ADMIN_EMAIL: 'a@b', ADMIN_PASSWORD: 'pw-SECRET', STORED_TOKEN: 'old-SECRET',
        ISSUE_NAME: 'forgejo-provision-mirror', ISSUE_SCOPES: 'read:user,write:repository', NAMESPACE: 'cicd',
        TARGET_NAME: 'forgejo-admin-token', TARGET_KEY: 'token', REPO_OWNER: 'acme', STUB_BODY: '', STUB_STATUSES: '',
        ...Object.fromEntries(Object.entries(env).filter(([k]) => !k.startsWith('file:'))),
      },
    });
    const read = (f: string) => (fs.existsSync(path.join(dir, f)) ? fs.readFileSync(path.join(dir, f), 'utf8') : '');
    return { status: result.status, stdout: result.stdout, stderr: result.stderr, read };
  }

  test('ensure-admin creates a missing administrator without forcing a password change', () => {
    const r = run(ENSURE_ADMIN_SCRIPT, { STUB_USERS: '2   someone   s@b   true  true  false' });
    expect(r.status).toBe(0);
    expect(r.stdout).toContain('created administrator forgejo-admin');
    expect(r.read('ini-argv')).toMatch(/^--config .*\/home\/forgejo\/custom\/conf\/app.ini\n$/);
    const calls = r.read('forgejo-argv').trim().split('\n');
    expect(calls[1]).toMatch(/admin user create --admin --username forgejo-admin --email a@b --password pw-SECRET --must-change-password=false$/);
  });

  test('ensure-admin leaves an existing administrator (and its password) alone', () => {
    const r = run(ENSURE_ADMIN_SCRIPT, { STUB_USERS: '1   forgejo-admin   a@b   true  true  false' });
    expect(r.status).toBe(0);
    expect(r.stdout).toContain('administrator forgejo-admin exists');
    expect(r.read('forgejo-argv')).not.toContain('create');
  });

  test('check-token keeps a token that authenticates as the administrator', () => {
    const r = run(CHECK_TOKEN_SCRIPT, { STUB_STATUSES: '200', STUB_BODY: '{"id":1,"login":"forgejo-admin"}' });
    expect(r.status).toBe(0);
    expect(r.read('shared/token-ok')).toBe('');
    expect(r.stdout).toContain('keeping it');
    expect(r.read('curl-argv')).toContain('http://forgejo:3000/api/v1/user');
    expect(r.read('curl-argv')).not.toContain('SECRET');
  });

  test.each([
    ['the placeholder (401)', '401', '{"message":"token is required"}'],
    ['another user\'s token', '200', '{"id":2,"login":"someone"}'],
  ])('check-token rejects %s', (_label, status, body) => {
    const r = run(CHECK_TOKEN_SCRIPT, { STUB_STATUSES: status, STUB_BODY: body });
    expect(r.status).toBe(0);
    expect(r.stdout).toContain('issuing one');
    expect(r.read('curl-argv')).not.toBe('');
  });

  test('issue-token issues a scoped token only when the check failed', () => {
    const kept = run(ISSUE_TOKEN_SCRIPT, { 'file:token-ok': '' });
    expect(kept.status).toBe(0);
    expect(kept.read('forgejo-argv')).toBe('');

    const issued = run(ISSUE_TOKEN_SCRIPT, { STUB_NEW_TOKEN: 'new-SECRET' });
    expect(issued.status).toBe(0);
    expect(issued.read('shared/token')).toBe('new-SECRET');
    expect(issued.read('forgejo-argv')).toMatch(
      /admin user generate-access-token --username forgejo-admin --token-name forgejo-provision-mirror-\d+ --scopes read:user,write:repository --raw/);
  });

  test('store patches a new token into its Secret, then creates a missing organisation', () => {
    const r = run(STORE_SCRIPT, { 'file:token': 'new-SECRET', STUB_STATUSES: '200 404 201' });
    expect(r.status).toBe(0);
    expect(JSON.parse(r.read('stdin-1'))).toEqual({ stringData: { token: 'new-SECRET' } });
    const argv = r.read('curl-argv').split('\n');
    expect(argv[0]).toContain('--request PATCH --data-binary @- --header Content-Type: application/merge-patch+json');
    expect(argv[0]).toContain('https://kubernetes.default.svc/api/v1/namespaces/cicd/secrets/forgejo-admin-token');
    expect(argv[1]).toContain('http://forgejo:3000/api/v1/orgs/acme');
    expect(argv[2]).toContain('--request POST --data-binary @- http://forgejo:3000/api/v1/orgs');
    expect(JSON.parse(r.read('stdin-3'))).toEqual({ username: 'acme', visibility: 'private' });
    expect(r.read('curl-argv')).not.toContain('SECRET');
    expect(r.read('home/auth')).toBe('Authorization: token new-SECRET\n');
    expect(r.stdout).toContain('created organisation acme');
  });

  test('store keeps a working token and an existing organisation', () => {
    const r = run(STORE_SCRIPT, { STUB_STATUSES: '200' });
    expect(r.status).toBe(0);
    expect(r.read('curl-argv').trim().split('\n')).toHaveLength(1);
    expect(r.read('home/auth')).toBe('Authorization: token old-SECRET\n');
    expect(r.stdout).toContain('organisation acme exists');
  });

  test('store creates nothing when the administrator owns the mirror', () => {
    const r = run(STORE_SCRIPT, { REPO_OWNER: 'forgejo-admin' });
    expect(r.status).toBe(0);
    expect(r.read('curl-argv')).toBe('');
  });

  test('store fails with Forgejo\'s answer when the organisation cannot be created', () => {
    const r = run(STORE_SCRIPT, { STUB_STATUSES: '404 422', STUB_BODY: '{"message":"user already exists"}' });
    expect(r.status).toBe(1);
    expect(r.stderr).toContain('Forgejo answered HTTP 422 to POST /api/v1/orgs:');
    expect(r.stderr).toContain('user already exists');
  });
});
