import { createHash } from 'crypto';
import { Duration, Testing } from 'cdk8s';
import { CURL_IMAGE, ForgejoMirrorJob, ForgejoMirrorJobProps, MIRROR_SCRIPT } from '../../../lib/constructs/forgejo/forgejo-mirror-job';
import { parseGithubSeed } from '../../../lib/shared/git-urls';
import { find, FORGEJO } from '../argocd/util';
import { findTool, testWith } from '../../tools';

const SHELLCHECK = findTool('shellcheck');
/** First 16 hex digits of the SHA-256 of the stub's GitHub token, as the script records it. */
const FINGERPRINT = createHash('sha256').update('ghp_SECRET1').digest('hex').slice(0, 16);

const PROPS: ForgejoMirrorJobProps = {
  forgejo: FORGEJO,
  namespace: 'cicd',
  seed: parseGithubSeed('git@github.com:homelab-owner/homelab.git'),
  repoOwner: 'homelab-owner',
  githubToken: { name: 'gh-token', key: 'token' },
  forgejoAdminToken: { name: 'fj-token', key: 'token' },
};

function synth(props: ForgejoMirrorJobProps = PROPS) {
  const chart = Testing.chart();
  const job = new ForgejoMirrorJob(chart, 'Mirror', props);
  return { job, json: find(Testing.synth(chart), 'Job', job.name) };
}

test('defaults', () => {
  const { job, json } = synth();
  expect(job.name).toBe('forgejo-mirror');
  expect(job.repoName).toBe('homelab');
  expect(job.cloneAddr).toBe('https://github.com/homelab-owner/homelab.git');
  expect(job.mirrorInterval).toBe('10m0s');
  expect(job.backoffLimit).toBe(4);
  expect(job.activeDeadline.toSeconds()).toBe(900);
  expect(job.image).toBe(CURL_IMAGE);
  expect(json.metadata.namespace).toBe('cicd');
  expect(json.metadata.annotations).toEqual({ 'argocd.argoproj.io/sync-options': 'Replace=true,Force=true' });
  expect(json).toHaveProperty('spec.backoffLimit', 4);
  expect(json).toHaveProperty('spec.activeDeadlineSeconds', 900);
});

test('runs restricted as curl_user with small resources and no API token', () => {
  const pod = synth().json.spec.template.spec;
  expect(pod.automountServiceAccountToken).toBe(false);
  expect(pod.restartPolicy).toBe('Never');
  expect(pod.securityContext).toMatchObject({ runAsNonRoot: true, runAsUser: 100, runAsGroup: 101, seccompProfile: { type: 'RuntimeDefault' } });
  const c = pod.containers[0];
  expect(c.image).toBe('docker.io/curlimages/curl:8.22.0');
  expect(c.securityContext).toMatchObject({
    runAsNonRoot: true, allowPrivilegeEscalation: false, readOnlyRootFilesystem: true, capabilities: { drop: ['ALL'] },
  });
  expect(c.resources).toEqual({ requests: { cpu: '10m', memory: '16Mi' }, limits: { memory: '64Mi' } });
});

test('calls the migrate API with both tokens from Secret references only', () => {
  const c = synth().json.spec.template.spec.containers[0];
  expect(c.command).toEqual(['/bin/sh', '-c', MIRROR_SCRIPT]);
  expect(c.env).toEqual([
    { name: 'HOME', value: '/tmp' },
    { name: 'FORGEJO_URL', value: 'http://forgejo-http.cicd.svc.cluster.local:3000' },
    { name: 'CLONE_ADDR', value: 'https://github.com/homelab-owner/homelab.git' },
    { name: 'REPO_OWNER', value: 'homelab-owner' },
    { name: 'REPO_NAME', value: 'homelab' },
    { name: 'MIRROR_INTERVAL', value: '10m0s' },
    { name: 'GITHUB_TOKEN', valueFrom: { secretKeyRef: { name: 'gh-token', key: 'token' } } },
    { name: 'FORGEJO_TOKEN', valueFrom: { secretKeyRef: { name: 'fj-token', key: 'token' } } },
  ]);
  for (const field of ['"clone_addr"', '"repo_owner"', '"repo_name"', '"mirror":true', '"mirror_interval"', '"service":"github"', '"private":true', '"auth_token"']) {
    expect(MIRROR_SCRIPT).toContain(field);
  }
  expect(MIRROR_SCRIPT).toContain('"$FORGEJO_URL/api/v1/repos/migrate"');
  expect(MIRROR_SCRIPT).toMatch(/201\)\n {4}echo "created/);
  expect(MIRROR_SCRIPT).toMatch(/409\) ;;\n/);
  expect(MIRROR_SCRIPT).toMatch(/\*\) fail "POST \/api\/v1\/repos\/migrate" ;;/);
});

test('all props', () => {
  const props: Required<ForgejoMirrorJobProps> = {
    ...PROPS,
    repoName: 'mirror',
    mirrorInterval: '8h0m0s',
    name: 'mirror-job',
    backoffLimit: 1,
    activeDeadline: Duration.minutes(5),
    image: 'docker.io/curlimages/curl:8.21.0',
    rotationSchedule: '0 * * * *',
  };
  const { job, json } = synth(props);
  expect(job.rotationSchedule).toBe('0 * * * *');
  expect(job.cronJob.name).toBe('mirror-job-rotation');
  expect(job.repoName).toBe('mirror');
  expect(json.metadata.name).toBe('mirror-job');
  expect(json).toHaveProperty('spec.activeDeadlineSeconds', 300);
  expect(json.spec.template.spec.containers[0].env).toContainEqual({ name: 'MIRROR_INTERVAL', value: '8h0m0s' });
});

test('a CronJob runs the same pod on a schedule, never twice at once', () => {
  // GIVEN
  const chart = Testing.chart();

  // WHEN
  const job = new ForgejoMirrorJob(chart, 'Mirror', PROPS);

  // THEN
  expect(job.rotationSchedule).toBe('*/30 * * * *');
  const objects = Testing.synth(chart);
  const cron = find(objects, 'CronJob', 'forgejo-mirror-rotation');
  expect(cron.metadata.namespace).toBe('cicd');
  expect(cron.spec.schedule).toBe('*/30 * * * *');
  expect(cron.spec.concurrencyPolicy).toBe('Forbid');
  expect(cron.spec.jobTemplate.spec).toEqual(find(objects, 'Job', 'forgejo-mirror').spec);
  // The Job is replaced on sync; the CronJob is an ordinary object Argo CD keeps in sync.
  expect(cron.metadata).not.toHaveProperty('annotations');
});

test('throws on a rotation schedule that is not a five-field cron schedule', () => {
  expect(() => synth({ ...PROPS, rotationSchedule: 'hourly' })).toThrow(new Error(
    'test/Mirror: \'rotationSchedule\' must be a five-field cron schedule such as \'*/30 * * * *\', got \'hourly\'.'));
  expect(() => synth({ ...PROPS, rotationSchedule: '*/30 * * *' })).toThrow(/'rotationSchedule' must be a five-field cron schedule/);
});

test('throws on a mirror interval that is not a Go duration', () => {
  expect(() => synth({ ...PROPS, mirrorInterval: 'hourly' })).toThrow(new Error(
    'forgejo mirror: mirrorInterval \'hourly\' is not a Go duration such as \'10m0s\' or \'8h\'. Set argocd.forgejoMirror.mirrorInterval.'));
});

testWith(SHELLCHECK)('the script is shellcheck-clean as POSIX sh', () => {
  const { spawnSync } = require('child_process') as typeof import('child_process');
  const r = spawnSync(SHELLCHECK.command!, ['--shell=sh', '--severity=style', '-'], { input: MIRROR_SCRIPT, encoding: 'utf8' });
  expect(r.stdout).toBe('');
  expect(r.status).toBe(0);
});

describe('the script, against a stub curl', () => {
  // The stub answers with the next status of STUB_STATUSES, writes STUB_BODY to --output, and records its
  // argv and stdin, so the test sees what Forgejo would receive.
  const STUB = `#!/bin/sh
dir=$(dirname "$0")
n=$(cat "$dir/calls" 2>/dev/null || echo 0); n=$((n + 1)); echo "$n" > "$dir/calls"
echo "$*" >> "$dir/argv"
out=
while [ $# -gt 0 ]; do
  case "$1" in --output) out=$2; shift ;; --data-binary) cat > "$dir/stdin-$n" ;; esac
  shift
done
printf '%s' "$STUB_BODY" > "$out"
echo "$STUB_STATUSES" | cut -d' ' -f"$n" | tr -d '\\n'
`;

  function run(statuses: string, body: string) {
    const fs = require('fs') as typeof import('fs');
    const os = require('os') as typeof import('os');
    const path = require('path') as typeof import('path');
    const { spawnSync } = require('child_process') as typeof import('child_process');
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mirror-stub-'));
    fs.writeFileSync(path.join(dir, 'curl'), STUB, { mode: 0o755 });
    const result = spawnSync('sh', ['-c', MIRROR_SCRIPT], {
      encoding: 'utf8',
      env: {
        PATH: `${dir}:${process.env.PATH}`, STUB_STATUSES: statuses, STUB_BODY: body,
        FORGEJO_URL: 'http://forgejo:3000', CLONE_ADDR: 'https://github.com/o/homelab.git', REPO_OWNER: 'o', REPO_NAME: 'homelab',
        MIRROR_INTERVAL: '10m0s', GITHUB_TOKEN: 'ghp_SECRET1', FORGEJO_TOKEN: 'fj_SECRET2',
      },
    });
    const read = (f: string) => (fs.existsSync(path.join(dir, f)) ? fs.readFileSync(path.join(dir, f), 'utf8') : '');
    return { status: result.status, stdout: result.stdout, stderr: result.stderr, argv: read('argv'), body: read('stdin-1'),
      stdin: (n: number) => read(`stdin-${n}`) };
  }

  test('201: created, with the token only in the request body and its fingerprint in the description', () => {
    const r = run('201', '{}');
    expect(r.status).toBe(0);
    expect(r.stdout).toContain('created pull-mirror o/homelab of https://github.com/o/homelab.git');
    expect(JSON.parse(r.body)).toEqual({
      clone_addr: 'https://github.com/o/homelab.git', repo_owner: 'o', repo_name: 'homelab', mirror: true,
      mirror_interval: '10m0s', service: 'github', private: true, auth_token: 'ghp_SECRET1',
      description: `Pull-mirror of https://github.com/o/homelab.git; credentials sha256:${FINGERPRINT}`,
    });
    expect(r.argv).toContain('--request POST --data-binary @- http://forgejo:3000/api/v1/repos/migrate');
    expect(r.argv).not.toContain('SECRET');
  });

  test('409 for a mirror made with the current token: success, nothing else', () => {
    const r = run('409 200', `{"id":1,"mirror":true,"description":"Pull-mirror of x; credentials sha256:${FINGERPRINT}"}`);
    expect(r.status).toBe(0);
    expect(r.stdout).toContain('pull-mirror o/homelab exists with the current token');
    expect(r.argv.trim().split('\n')).toHaveLength(2);
  });

  test('409 for a mirror made with another token: re-created with the new one, old deleted only after', () => {
    // GIVEN a mirror whose description carries another token's fingerprint
    const body = '{"id":1,"mirror":true,"description":"Pull-mirror of x; credentials sha256:0123456789abcdef"}';

    // WHEN migrate 409, GET 200, GET <repo>-rotating 404, migrate 201, DELETE 204, PATCH 200
    const r = run('409 200 404 201 204 200', body);

    // THEN
    expect(r.status).toBe(0);
    expect(r.stdout).toContain('the GitHub token changed: re-creating pull-mirror o/homelab');
    expect(r.stdout).toContain('re-created pull-mirror o/homelab with the new GitHub token');
    const calls = r.argv.trim().split('\n');
    expect(calls.map((c) => c.match(/--request (\w+)/)![1] + ' ' + c.split(' ').pop())).toEqual([
      'POST http://forgejo:3000/api/v1/repos/migrate',
      'GET http://forgejo:3000/api/v1/repos/o/homelab',
      'GET http://forgejo:3000/api/v1/repos/o/homelab-rotating',
      'POST http://forgejo:3000/api/v1/repos/migrate',
      'DELETE http://forgejo:3000/api/v1/repos/o/homelab',
      'PATCH http://forgejo:3000/api/v1/repos/o/homelab-rotating',
    ]);
    expect(JSON.parse(r.stdin(4))).toMatchObject({ repo_name: 'homelab-rotating', auth_token: 'ghp_SECRET1' });
    expect(JSON.parse(r.stdin(6))).toEqual({ name: 'homelab' });
    expect(r.argv).not.toContain('SECRET');
  });

  test('rotation clears a mirror left under <repo>-rotating by an interrupted run', () => {
    const r = run('409 200 200 204 201 204 200', '{"id":1,"mirror":true,"description":""}');
    expect(r.status).toBe(0);
    expect(r.argv.trim().split('\n')[3]).toContain('--request DELETE http://forgejo:3000/api/v1/repos/o/homelab-rotating');
  });

  test('rotation keeps the old mirror when the new one cannot be created', () => {
    const r = run('409 200 404 422', '{"id":1,"mirror":true,"message":"Bad credentials"}');
    expect(r.status).toBe(1);
    expect(r.stderr).toContain('Forgejo answered HTTP 422 to POST /api/v1/repos/migrate (homelab-rotating):');
    expect(r.argv).not.toContain('DELETE');
  });

  test('409 for a repository that is not a mirror: fails', () => {
    const r = run('409 200', '{"id":1,"mirror":false}');
    expect(r.status).toBe(1);
    expect(r.stderr).toContain('o/homelab exists in Forgejo but is not a pull-mirror (HTTP 200)');
  });

  test('anything else fails with Forgejo\'s answer', () => {
    const r = run('422', '{"message":"owner does not exist"}');
    expect(r.status).toBe(1);
    expect(r.stderr).toContain('Forgejo answered HTTP 422 to POST /api/v1/repos/migrate:');
    expect(r.stderr).toContain('owner does not exist');
  });
});
