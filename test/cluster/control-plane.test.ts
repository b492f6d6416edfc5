// The harness itself: the control plane is the pinned release, serves on 127.0.0.1 only, enforces RBAC and
// Pod Security, and stop() leaves no process behind.
import { ControlPlane } from './harness/control-plane';

let plane: ControlPlane;
beforeAll(async () => { plane = await ControlPlane.start(); }, 600_000);
afterAll(async () => { await plane?.stop(); });

test('kube-apiserver and kubectl are the pinned release, stamped (not v0.0.0-master)', async () => {
  const r = await plane.kubectl(['version', '-o', 'json']);
  expect(r.status).toBe(0);
  const v = JSON.parse(r.stdout);
  expect(v.clientVersion.gitVersion).toBe(plane.binaries.version);
  expect(v.serverVersion.gitVersion).toBe(plane.binaries.version);
  expect(plane.binaries.version).toMatch(/^v1\.30\.\d+$/);
});

test('the API server listens on 127.0.0.1 only', async () => {
  expect(plane.url).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
});

test('RBAC is enforced: a ServiceAccount without a binding cannot list Secrets', async () => {
  await plane.kubectl(['create', 'serviceaccount', 'nobody', '-n', 'default']);
  const kubeconfig = await plane.serviceAccountKubeconfig('default', 'nobody');
  const r = await plane.kubectl(['--kubeconfig', kubeconfig, 'get', 'secrets', '-n', 'default']);
  expect(r.status).not.toBe(0);
  expect(r.stderr).toContain('system:serviceaccount:default:nobody');
  expect(r.stderr).toContain('forbidden');
});

test('Pod Security admission judges Pods in a namespace labelled enforce=restricted', async () => {
  await plane.kubectl(['create', 'namespace', 'psa-check']);
  await plane.kubectl(['label', 'namespace', 'psa-check', 'pod-security.kubernetes.io/enforce=restricted']);
  const pod = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'root', namespace: 'psa-check' }, spec: { containers: [{ name: 'c', image: 'busybox' }] } };
  const r = await plane.kubectl(['apply', '--dry-run=server', '-f', '-'], JSON.stringify(pod));
  expect(r.status).not.toBe(0);
  expect(r.stderr).toContain('violates PodSecurity "restricted:latest"');
});

test('stop() ends every process it started', async () => {
  const pids = plane.pids;
  expect(pids.length).toBe(3);
  await plane.stop();
  for (const pid of pids) expect(() => process.kill(pid, 0)).toThrow();
});
