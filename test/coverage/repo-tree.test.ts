import { scanRepoTree } from '../../lib/coverage/repo-tree';
import { encryptedSecret, kustomization, manifest, TempCheckouts } from './fixture';

const checkouts = new TempCheckouts();
afterEach(() => checkouts.cleanup());

test('one sorted walk: directories and files in byte order, .git and node_modules skipped', () => {
  // GIVEN files written out of order
  const root = checkouts.write({
    'b/z.yaml': manifest('ConfigMap', 'z'),
    'a-b/x.yaml': manifest('ConfigMap', 'x'),
    'a/B.yaml': manifest('ConfigMap', 'B'),
    'a/a.yaml': manifest('ConfigMap', 'a'),
    '.git/config': '[core]\n',
    'node_modules/pkg/deploy.yaml': manifest('Deployment', 'pkg', 'apps/v1'),
    'a/node_modules/x.yaml': manifest('ConfigMap', 'n'),
  });
  // WHEN
  const tree = scanRepoTree(root);
  // THEN
  expect([...tree.directories.keys()]).toEqual(['.', 'a', 'a-b', 'b']);
  expect([...tree.files.keys()]).toEqual(['a-b/x.yaml', 'a/B.yaml', 'a/a.yaml', 'b/z.yaml']);
  expect(tree.directories.get('a')!.files).toEqual(['a/B.yaml', 'a/a.yaml']);
  expect(tree.root).toBe(root);
});

test('a manifest has a top-level apiVersion and kind; values, kustomizations and Chart.yaml are not manifests', () => {
  const root = checkouts.write({
    'multi.yaml': `${manifest('ServiceAccount', 'sa')}---\n${manifest('Job', 'job', 'batch/v1')}`,
    'values.yaml': 'image:\n  kind: nested\n  apiVersion: nested\n',
    'kustomization.yaml': kustomization(['multi.yaml']),
    'component.yaml': 'apiVersion: kustomize.config.k8s.io/v1alpha1\nkind: Component\n',
    'Chart.yaml': 'apiVersion: v2\nname: x\nversion: 0.1.0\n',
    'quoted.yml': 'apiVersion: "v1"\nkind: "Secret"\n',
    'crd.json': '{"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition"}',
    'dashboard.json': '{"title": "nodes", "panels": []}',
    'notes.md': 'apiVersion: v1\nkind: Pod\n',
  });
  const tree = scanRepoTree(root);
  const info = (p: string) => ({ manifest: tree.files.get(p)!.manifest, kinds: tree.files.get(p)!.kinds });
  expect(info('multi.yaml')).toEqual({ manifest: true, kinds: ['ServiceAccount', 'Job'] });
  expect(info('values.yaml')).toEqual({ manifest: false, kinds: [] });
  expect(info('kustomization.yaml')).toEqual({ manifest: false, kinds: [] });
  expect(info('component.yaml').manifest).toBe(false);
  expect(info('Chart.yaml').manifest).toBe(false);
  expect(info('quoted.yml')).toEqual({ manifest: true, kinds: ['Secret'] });
  expect(info('crd.json')).toEqual({ manifest: true, kinds: ['CustomResourceDefinition'] });
  expect(info('dashboard.json').manifest).toBe(false);
  expect(info('notes.md').manifest).toBe(false);
  expect(tree.directories.get('.')).toMatchObject({ kustomization: 'kustomization.yaml', helmChart: true });
});

test('kustomization references: resources, bases and components apart from every other string', () => {
  const root = checkouts.write({
    'k/kustomization.yml': [
      'apiVersion: kustomize.config.k8s.io/v1beta1', 'kind: Kustomization',
      'resources:', '  - deploy.yaml', '  - ../base', 'components:', '  - ../components/tls',
      'patches:', '  - path: patch.yaml', 'configMapGenerator:', '  - name: cfg', '    files:', '      - config.json=files/config.json', '',
    ].join('\n'),
    'k/Kustomization': kustomization(['ignored.yaml']),
    'broken/kustomization.yaml': 'resources: [unclosed\n',
  });
  const tree = scanRepoTree(root);
  // kustomize reads kustomization.yaml, then kustomization.yml, then Kustomization.
  expect(tree.directories.get('k')!.kustomization).toBe('k/kustomization.yml');
  expect(tree.files.get('k/kustomization.yml')!.kustomization).toEqual({
    resources: ['deploy.yaml', '../base', '../components/tls'],
    otherStrings: ['kustomize.config.k8s.io/v1beta1', 'Kustomization', 'patch.yaml', 'cfg', 'config.json=files/config.json'],
    invalid: false,
  });
  expect(tree.files.get('broken/kustomization.yaml')!.kustomization).toEqual({ resources: [], otherStrings: [], invalid: true });
});

test('Argo CD Applications and SOPS-encrypted files are recognised', () => {
  const root = checkouts.write({
    'app.yaml': `${manifest('Application', 'kmsvc', 'argoproj.io/v1alpha1')}---\n${manifest('ApplicationSet', 'all', 'argoproj.io/v1alpha1')}`,
    'templated.yaml': 'apiVersion: argoproj.io/v1alpha1\nkind: Application\nmetadata:\n  name: {{ .name }\n  bad: [\n',
    'not-argo.yaml': manifest('Application', 'x', 'app.k8s.io/v1beta1'),
    'secret.enc.yaml': encryptedSecret('s'),
    'secret.json': '{"data": {}, "sops": {"version": "3.9.0"}}',
  });
  const tree = scanRepoTree(root);
  expect(tree.files.get('app.yaml')!.argoApplications).toEqual([{ kind: 'Application', name: 'kmsvc' }, { kind: 'ApplicationSet', name: 'all' }]);
  expect(tree.files.get('templated.yaml')!.argoApplications).toEqual([{ kind: 'Application' }]);
  expect(tree.files.get('not-argo.yaml')!.argoApplications).toEqual([]);
  expect(tree.files.get('secret.enc.yaml')!.sopsEncrypted).toBe(true);
  expect(tree.files.get('secret.json')!.sopsEncrypted).toBe(true);
  expect(tree.files.get('app.yaml')!.sopsEncrypted).toBe(false);
});
