// Every object of the output, for the reference homelab (the committed dist/) and the ddb example (a fresh
// synth), against a real kube-apiserver v1.30: CRD structural schemas with defaulting, CEL rules, RBAC,
// server-side apply and Pod Security admission, plus CloudNativePG's own admission webhooks. The upstream
// Argo CD and CNPG release manifests come from ../shared/manifests/ (checksums verified), so our kustomize
// patches meet the real objects.
import * as fs from 'fs';
import * as path from 'path';
import * as YAML from 'yaml';
import { CnpgWebhook } from './harness/cnpg-webhook';
import { ControlPlane } from './harness/control-plane';
import { applyUnits, describeWithShared, offlineCopy, ROOT, SHARED, synthesize, walk } from './harness/output-tree';
import { catalogCrdFiles } from './harness/catalog-crds';
import { REFERENCE_HOMELAB } from '../../lib/config/defaults';
import { HomelabConfig } from '../../lib/config/homelab-config';
import { synthesizeHomelab } from '../../lib/synth/synthesize-homelab';
import ddbExample from '../../examples/ddb-cluster.config';

const TREES = [
  { name: 'reference homelab (committed dist/)', dist: (): string => path.join(ROOT, 'dist'), config: REFERENCE_HOMELAB },
  { name: 'ddb example (fresh synth)', dist: (): string => synthesize(path.join(ROOT, 'examples', 'ddb-cluster.config.ts')), config: ddbExample },
];

/**
 * The containers the output's reviewed Pod Security exceptions cover, by object (`<Kind>/<namespace>/<name>`, as the
 * output validation names them): e.g. rootless BuildKit, whose namespace enforces privileged and warns at baseline.
 */
function reviewedExceptions(config: HomelabConfig): Map<string, Set<string>> {
  const out = new Map<string, Set<string>>();
  for (const e of synthesizeHomelab(config).argocd.delivery.flatMap((part) => part.podSecurityExceptions ?? [])) {
    out.set(e.object, new Set([...(out.get(e.object) ?? []), e.container]));
  }
  return out;
}

/** The containers a Pod Security warning names (`container "a"` or `containers "a", "b"`). */
function warnedContainers(stderr: string): string[] {
  return [...stderr.matchAll(/containers? ((?:"[^"]+"(?:, )?)+)/g)].flatMap((m) => [...m[1].matchAll(/"([^"]+)"/g)].map((n) => n[1]));
}

/** The pinned CRDs no bootstrap step installs (Argo CD's and CNPG's come with their release manifests). */
// The Barman Cloud plugin's ObjectStore CRD is not here: the barman-cloud-plugin step installs it from the plugin's manifest.
const extraCrds = (): string[] => ['image-updater', 'kyverno', 'rollouts'].flatMap((d) => walk(path.join(SHARED, 'crds', d)));

const WORKLOADS = 'deployments,statefulsets,daemonsets,jobs,cronjobs';

for (const { name, dist, config } of TREES) describeWithShared(`${name} against kube-apiserver`, () => {
  let plane: ControlPlane;
  let webhook: CnpgWebhook;
  let tree: string;
  const applied: string[] = [];

  beforeAll(async () => {
    tree = offlineCopy(dist());
    plane = await ControlPlane.start();
    webhook = new CnpgWebhook(plane);
    await webhook.start();
  }, 900_000);
  afterAll(async () => {
    await webhook?.stop();
    await plane?.stop();
    if (tree !== undefined) fs.rmSync(tree, { recursive: true, force: true });
  });

  test('the pinned CRDs that no step installs are accepted by the API server', async () => {
    const catalog = await catalogCrdFiles();
    const r = await plane.kubectl(['apply', '--server-side', ...[...extraCrds(), ...catalog.files].flatMap((f) => ['-f', f])]);
    fs.rmSync(catalog.dir, { recursive: true, force: true });
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    expect((await plane.waitCrdsEstablished(60)).status).toBe(0);
  });

  test('server-side dry-run, then server-side apply, of every unit in bring-up order: zero rejections', async () => {
    const rejections: string[] = [];
    for (const unit of applyUnits(tree)) {
      const manager = `--field-manager=homelab-test-${unit.name.replace(/[^a-z0-9]+/gi, '-')}`;
      const dryRun = await plane.kubectl(['apply', '--server-side', '--dry-run=server', manager, unit.flag, unit.path]);
      if (dryRun.status !== 0) {
        rejections.push(`${unit.name} (dry-run): ${dryRun.stderr.trim()}`);
        continue;
      }
      const r = await plane.kubectl(['apply', '--server-side', manager, unit.flag, unit.path]);
      if (r.status !== 0) rejections.push(`${unit.name}: ${r.stderr.trim()}`);
      else applied.push(unit.name);
      if (r.stdout.includes('customresourcedefinition')) {
        await plane.waitCrdsEstablished(120);
      }
      // The CNPG operator injects its CA into its webhook configurations at start-up; the harness does it.
      if (r.stdout.includes('cnpg-validating-webhook-configuration')) await webhook.injectCaBundle();
    }
    expect(rejections).toEqual([]);
    expect(applied.length).toBe(applyUnits(tree).length);
    // The CNPG objects were judged by CNPG's webhooks, not waved through: the API server called them.
    expect(plane.egress.refused).toEqual([]);
  });

  test('a second server-side apply changes nothing (kubectl diff --server-side is empty)', async () => {
    const changed: string[] = [];
    for (const unit of applyUnits(tree)) {
      const manager = `--field-manager=homelab-test-${unit.name.replace(/[^a-z0-9]+/gi, '-')}`;
      const r = await plane.kubectl(['diff', '--server-side', manager, unit.flag, unit.path]);
      if (r.status !== 0) changed.push(`${unit.name}: ${(r.stdout + r.stderr).trim().slice(0, 2000)}`);
    }
    expect(changed).toEqual([]);
  });

  test('Pod Security admission admits a Pod from every Pod template, ours and upstream, in its namespace', async () => {
    const workloads = JSON.parse((await plane.kubectl(['get', WORKLOADS, '-A', '-o', 'json'])).stdout).items as any[];
    expect(workloads.length).toBeGreaterThan(5);
    const exceptions = reviewedExceptions(config);
    const verdicts: string[] = [];
    for (const w of workloads) {
      const template = w.kind === 'CronJob' ? w.spec.jobTemplate.spec.template : w.spec.template;
      // What the ReplicaSet, StatefulSet, DaemonSet and Job controllers would create; Pod Security is enforced
      // on Pods only (workload objects get warnings), so this is the verdict a real cluster would give.
      const pod = { apiVersion: 'v1', kind: 'Pod', metadata: { name: `psa-${w.metadata.name}`.slice(0, 63), namespace: w.metadata.namespace, labels: template.metadata?.labels }, spec: template.spec };
      const r = await plane.kubectl(['create', '--dry-run=server', '-f', '-'], JSON.stringify(pod));
      // A reviewed exception (e.g. rootless BuildKit, lib/homelab/delivery/build.ts: Unconfined seccomp and AppArmor, so its
      // namespace enforces privileged and only warns at baseline) is admitted, with a warning naming its containers alone.
      const excepted = exceptions.get(`${w.kind}/${w.metadata.namespace}/${w.metadata.name}`);
      const warned = warnedContainers(r.stderr);
      const reviewed = r.status === 0 && excepted !== undefined && warned.length > 0 && warned.every((c) => excepted.has(c));
      if (r.status !== 0 || (/would violate PodSecurity/.test(r.stderr) && !reviewed)) verdicts.push(`${w.kind} ${w.metadata.namespace}/${w.metadata.name}: ${r.stderr.trim()}`);
    }
    expect(verdicts).toEqual([]);
  });

  test('every namespace the output labels for Pod Security carries a level the API server accepts', async () => {
    const namespaces = JSON.parse((await plane.kubectl(['get', 'namespaces', '-o', 'json'])).stdout).items as any[];
    const labelled = namespaces.filter((n) => n.metadata.labels?.['pod-security.kubernetes.io/enforce'] !== undefined);
    expect(labelled.length).toBeGreaterThan(3);
    const ours = YAML.parseAllDocuments(fs.readFileSync(path.join(tree, 'bootstrap', '01-namespaces.yaml'), 'utf8')).map((d) => d.toJSON());
    for (const n of ours) {
      const live = namespaces.find((x) => x.metadata.name === n.metadata.name);
      expect(live?.metadata.labels).toMatchObject(n.metadata.labels ?? {});
    }
  });
});
