// lib/shared/immutable-fields.ts against the real API server: every listed field, changed on a live object,
// is refused with the listed message; a mutable change of the same object is accepted (so a refusal is about
// the field, not a broken fixture); PVC growth is told apart from shrinking by binding the claim and defining
// the StorageClass. CRD fields made immutable by CEL (crdImmutableFields) are checked the same way.
import * as fs from 'fs';
import * as path from 'path';
import * as YAML from 'yaml';
import { crdImmutableFields, IMMUTABLE_FIELDS, ImmutableField } from '../../lib/shared/immutable-fields';
import { CnpgWebhook } from './harness/cnpg-webhook';
import { ControlPlane, KubectlResult } from './harness/control-plane';
import { describeWithShared, localManifest, SHARED, walk } from './harness/output-tree';
import { StatusWriter } from './harness/status-writer';

const NS = 'immutable-check';
const labels = (app: string): Record<string, string> => ({ app });
const container = { name: 'c', image: 'registry.k8s.io/pause:3.9' };
const podTemplate = (app: string, restartPolicy = 'Always'): any => ({ metadata: { labels: labels(app) }, spec: { restartPolicy, containers: [container] } });

/** A valid object of each kind the list names, in NS, named `name`. */
function base(kind: string, name: string): any {
  const metadata = { name, namespace: NS };
  switch (kind) {
    case 'Deployment':
    case 'DaemonSet':
      return { apiVersion: 'apps/v1', kind, metadata, spec: { selector: { matchLabels: labels(name) }, template: podTemplate(name) } };
    case 'StatefulSet':
      return {
        apiVersion: 'apps/v1', kind, metadata,
        spec: {
          serviceName: name, podManagementPolicy: 'OrderedReady', selector: { matchLabels: labels(name) }, template: podTemplate(name),
          volumeClaimTemplates: [{ metadata: { name: 'data' }, spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } } }],
        },
      };
    case 'Job':
      return { apiVersion: 'batch/v1', kind, metadata, spec: { completions: 1, completionMode: 'NonIndexed', template: podTemplate(name, 'Never') } };
    case 'PersistentVolumeClaim':
      return { apiVersion: 'v1', kind, metadata, spec: { storageClassName: 'expandable', accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '2Gi' } } } };
    case 'Service':
      return { apiVersion: 'v1', kind, metadata, spec: { selector: labels(name), ports: [{ port: 80 }] } };
    case 'Secret':
      return { apiVersion: 'v1', kind, metadata, type: 'Opaque', immutable: true, data: { key: Buffer.from('a').toString('base64') } };
    case 'ConfigMap':
      return { apiVersion: 'v1', kind, metadata, immutable: true, data: { key: 'a' } };
    case 'RoleBinding':
      return { apiVersion: 'rbac.authorization.k8s.io/v1', kind, metadata, roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'view' }, subjects: [] };
    case 'ClusterRoleBinding':
      return { apiVersion: 'rbac.authorization.k8s.io/v1', kind, metadata: { name }, roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'view' }, subjects: [] };
    case 'StorageClass':
      return { apiVersion: 'storage.k8s.io/v1', kind, metadata: { name }, provisioner: 'example.com/a', parameters: { a: '1' }, reclaimPolicy: 'Retain' };
  }
  throw new Error(`no base object for ${kind}: add one to test/cluster/immutable-fields.test.ts`);
}

/** The same object with `field` changed to another valid value. */
function changed(field: ImmutableField, o: any): any {
  const c = structuredClone(o);
  const name = o.metadata.name;
  switch (`${field.kind} ${field.path}`) {
    case 'Deployment spec.selector':
    case 'DaemonSet spec.selector':
    case 'StatefulSet spec.selector':
      c.spec.selector.matchLabels.tier = 'b';
      c.spec.template.metadata.labels.tier = 'b';
      return c;
    case 'StatefulSet spec.serviceName': c.spec.serviceName = `${name}-other`; return c;
    case 'StatefulSet spec.volumeClaimTemplates': c.spec.volumeClaimTemplates[0].spec.resources.requests.storage = '2Gi'; return c;
    case 'StatefulSet spec.podManagementPolicy': c.spec.podManagementPolicy = 'Parallel'; return c;
    case 'Job spec.template': c.spec.template.spec.containers[0].image = 'registry.k8s.io/pause:3.10'; return c;
    case 'Job spec.selector': c.spec.selector = { matchLabels: { other: 'x' } }; c.spec.manualSelector = true; return c;
    case 'Job spec.completionMode': c.spec.completionMode = 'Indexed'; return c;
    case 'PersistentVolumeClaim spec.resources.requests.storage': c.spec.resources.requests.storage = '1Gi'; return c;
    case 'PersistentVolumeClaim spec.storageClassName': c.spec.storageClassName = 'fixed'; return c;
    case 'PersistentVolumeClaim spec.accessModes': c.spec.accessModes = ['ReadWriteMany']; return c;
    case 'Service spec.clusterIP': c.spec.clusterIP = '10.96.200.200'; return c;
    case 'Secret type': c.type = 'example.com/other'; return c;
    case 'Secret data': c.data.key = Buffer.from('b').toString('base64'); return c;
    case 'ConfigMap data': c.data.key = 'b'; return c;
    case 'RoleBinding roleRef':
    case 'ClusterRoleBinding roleRef': c.roleRef.name = 'edit'; return c;
    case 'StorageClass provisioner': c.provisioner = 'example.com/b'; return c;
    case 'StorageClass parameters': c.parameters.a = '2'; return c;
    case 'StorageClass reclaimPolicy': c.reclaimPolicy = 'Delete'; return c;
  }
  throw new Error(`no change for ${field.kind} ${field.path}: add one to test/cluster/immutable-fields.test.ts`);
}

/** Server-side apply by one field manager, as a pull request re-applies its objects. */
function apply(plane: ControlPlane, o: any): Promise<KubectlResult> {
  return plane.kubectl(['apply', '--server-side', '--force-conflicts', '--field-manager=immutable-check', '-f', '-'], JSON.stringify(o));
}

describeWithShared('immutable fields against kube-apiserver', () => {
  let plane: ControlPlane;
  let webhook: CnpgWebhook;
  let writer: StatusWriter;

  beforeAll(async () => {
    plane = await ControlPlane.start();
    webhook = new CnpgWebhook(plane);
    await webhook.start();
    writer = new StatusWriter(plane, { readyAfterMs: 0, controllers: [() => webhook.injectCaBundle()] }).start();
    await plane.kubectl(['create', 'namespace', NS]);
    // CNPG's CRDs and webhooks from its release manifest, and the other pinned CRDs.
    expect((await plane.kubectl(['apply', '--server-side', '-f', localManifest('https://github.com/cloudnative-pg/cloudnative-pg/releases/download/v1.30.0/cnpg-1.30.0.yaml')])).status).toBe(0);
    expect((await plane.kubectl(['apply', '--server-side', ...walk(path.join(SHARED, 'crds', 'rollouts')).flatMap((f) => ['-f', f])])).status).toBe(0);
    await plane.waitCrdsEstablished(120);
    for (const [name, expansion] of [['expandable', true], ['fixed', false]] as const) {
      await apply(plane, { apiVersion: 'storage.k8s.io/v1', kind: 'StorageClass', metadata: { name }, provisioner: 'driver.longhorn.io', allowVolumeExpansion: expansion });
    }
  }, 900_000);
  afterAll(async () => {
    await writer?.stop();
    await webhook?.stop();
    await plane?.stop();
  });

  async function bound(name: string): Promise<void> {
    for (let i = 0; i < 100; i++) {
      const pvc = JSON.parse((await plane.kubectl(['get', 'pvc', name, '-n', NS, '-o', 'json'])).stdout);
      if (pvc.status?.phase === 'Bound') return;
      await new Promise((r) => setTimeout(r, 100));
    }
    throw new Error(`PVC ${name} was not bound`);
  }

  describe('every field of IMMUTABLE_FIELDS is refused by kube-apiserver with the listed message', () => {
    test.each(IMMUTABLE_FIELDS.map((f, i) => ({ ...f, name: `${f.kind.toLowerCase()}-${i}` })))('$kind $path ($rule)', async (field) => {
      const o = base(field.kind, field.name);
      expect(await apply(plane, o)).toMatchObject({ status: 0 });
      if (field.kind === 'PersistentVolumeClaim') await bound(field.name);
      if (field.kind === 'Service') o.spec.clusterIP = JSON.parse((await plane.kubectl(['get', 'svc', field.name, '-n', NS, '-o', 'json'])).stdout).spec.clusterIP;
      // A mutable change first: labels can always change, so a refusal below is the field's, not the fixture's.
      expect(await apply(plane, { ...o, metadata: { ...o.metadata, labels: { touched: 'yes' } } })).toMatchObject({ status: 0 });
      const r = await apply(plane, changed(field, o));
      expect(r.status).not.toBe(0);
      expect(r.stderr).toContain(field.message);
    });
  });

  describe('PersistentVolumeClaim growth, told apart from shrinking (claims bound, StorageClasses defined)', () => {
    test('a bound claim of a class that allows expansion may grow', async () => {
      const o = base('PersistentVolumeClaim', 'grow-expandable');
      expect((await apply(plane, o)).status).toBe(0);
      await bound('grow-expandable');
      o.spec.resources.requests.storage = '5Gi';
      expect(await apply(plane, o)).toMatchObject({ status: 0, stderr: '' });
    });

    test('a bound claim of a class without expansion may not grow', async () => {
      const o = { ...base('PersistentVolumeClaim', 'grow-fixed') };
      o.spec.storageClassName = 'fixed';
      expect((await apply(plane, o)).status).toBe(0);
      await bound('grow-fixed');
      o.spec.resources.requests.storage = '5Gi';
      const r = await apply(plane, o);
      expect(r.status).not.toBe(0);
      expect(r.stderr).toContain('only dynamically provisioned pvc can be resized and the storageclass that provisions the pvc must support resize');
    });
  });

  /**
   * Two valid values of each CRD field its CEL rule freezes, and the sibling fields other CEL rules require with
   * it (e.g. `icuLocale` only with `localeProvider: icu`); a field without an entry fails the test by name.
   */
  const CRD_VALUES: Record<string, readonly [unknown, unknown, Record<string, unknown>?]> = {
    'Database spec.cluster': [{ name: 'db-a' }, { name: 'db-b' }],
    'Database spec.name': ['app', 'other'],
    'Database spec.encoding': ['UTF8', 'LATIN1'],
    'Database spec.locale': ['C', 'en_US.UTF-8'],
    'Database spec.localeCType': ['C', 'en_US.UTF-8'],
    'Database spec.localeCollate': ['C', 'en_US.UTF-8'],
    'Database spec.localeProvider': ['libc', 'icu'],
    'Database spec.icuLocale': ['en', 'de', { localeProvider: 'icu' }],
    'Database spec.icuRules': ['&a < b', '&b < c', { localeProvider: 'icu', icuLocale: 'en' }],
    'Database spec.builtinLocale': ['C', 'C.UTF-8', { localeProvider: 'builtin' }],
    'Database spec.collationVersion': ['1', '2'],
    'Database spec.template': ['template0', 'template1'],
    'DatabaseRole spec.name': ['app', 'other'],
    'DatabaseRole spec.cluster': [{ name: 'db-a' }, { name: 'db-b' }],
    'ScheduledBackup spec.cluster': [{ name: 'db-a' }, { name: 'db-b' }],
    'Cluster spec.serviceAccountName': ['sa-a', 'sa-b'],
    'Rollout spec.selector': [{ matchLabels: { app: 'a' } }, { matchLabels: { app: 'b' } }],
  };

  function crdBase(kind: string, name: string): any {
    const metadata = { name, namespace: NS };
    switch (kind) {
      case 'Database': return { apiVersion: 'postgresql.cnpg.io/v1', kind, metadata, spec: { cluster: { name: 'db-a' }, name: 'app', owner: 'app' } };
      case 'DatabaseRole': return { apiVersion: 'postgresql.cnpg.io/v1', kind, metadata, spec: { cluster: { name: 'db-a' }, name: 'app' } };
      case 'ScheduledBackup': return { apiVersion: 'postgresql.cnpg.io/v1', kind, metadata, spec: { cluster: { name: 'db-a' }, schedule: '0 0 0 * * *' } };
      case 'Cluster': return { apiVersion: 'postgresql.cnpg.io/v1', kind, metadata, spec: { instances: 1, storage: { size: '1Gi' } } };
      case 'Rollout': return { apiVersion: 'argoproj.io/v1alpha1', kind, metadata, spec: { selector: { matchLabels: { app: 'a' } }, template: podTemplate('a') } };
    }
    throw new Error(`no base object for ${kind}`);
  }

  describe('every CRD field frozen by a CEL rule (crdImmutableFields over the pinned CRDs) is refused', () => {
    const crds = [path.join(SHARED, 'crds', 'cnpg'), path.join(SHARED, 'crds', 'rollouts')].flatMap(walk)
      .flatMap((f) => YAML.parseAllDocuments(fs.readFileSync(f, 'utf8')).map((d) => d.toJSON()))
      .filter((o) => o?.kind === 'CustomResourceDefinition');
    const fields = crds.flatMap(crdImmutableFields);

    test('the pinned CRDs freeze the fields CRD_VALUES covers, no more, no fewer', () => {
      expect(fields.map((f) => `${f.kind} ${f.path}`).sort()).toEqual(Object.keys(CRD_VALUES).sort());
    });

    test.each(fields.map((f, i) => ({ ...f, name: `${f.kind.toLowerCase()}-cel-${i}` })))('$kind $path', async (field) => {
      const [before, after, siblings] = CRD_VALUES[`${field.kind} ${field.path}`];
      const key = field.path.split('.').pop()!;
      const o = crdBase(field.kind, field.name);
      o.spec[key] = before;
      const withSiblings = { ...o.spec, ...siblings };
      o.spec = withSiblings;
      if (field.kind === 'Rollout') o.spec.template = podTemplate((before as any).matchLabels.app);
      const created = await apply(plane, o);
      expect(created).toMatchObject({ status: 0, stderr: '' });
      o.spec[key] = after;
      if (field.kind === 'Rollout') o.spec.template = podTemplate((after as any).matchLabels.app);
      const r = await apply(plane, o);
      expect(r.status).not.toBe(0);
      expect(r.stderr).toContain(field.message);
    });
  });
});
