// How the coverage audit treats the app tier: the generated app folder is part of dist/ (exempt from orphan and
// dead-aggregator findings, checked by `npm run check`); the overlay is an Application source outside dist/ that must
// exist and must build the generated folder.
import { auditCoverage, CoverageReport } from '../../lib/coverage/audit-coverage';
import { scanRepoTree } from '../../lib/coverage/repo-tree';
import { Files, kustomization, manifest, referenceCheckout, synthesized, TempCheckouts } from '../coverage/fixture';

const checkouts = new TempCheckouts();
afterEach(() => checkouts.cleanup());

function missing(files: Files): CoverageReport['missing'] {
  return auditCoverage(synthesized().model, scanRepoTree(checkouts.write(files))).missing;
}

test('the model knows each delivery app\'s overlay and the generated folder it must build', () => {
  const hello = synthesized().model.sources.find((s) => s.application === 'hello')!;
  expect(hello).toMatchObject({ path: 'k8s/apps/hello', configPath: 'delivery.apps.hello.overlayPath', overlayOf: 'k8s/generated/apps/hello', recurse: false });
  expect(synthesized().model.sources.find((s) => s.application === 'argo-rollouts')).toMatchObject({ configPath: 'delivery.rollouts', overlayOf: undefined });
});

test('the reference checkout, with the one-line overlays, reaches every generated app folder', () => {
  const files = referenceCheckout();
  expect(files['k8s/apps/hello/kustomization.yaml']).toBe(kustomization(['../../generated/apps/hello']));
  expect(missing(files)).toEqual([]);
});

test('fails for an overlay that does not exist, saying what to write', () => {
  const files = referenceCheckout();
  delete files['k8s/apps/hello/kustomization.yaml'];
  expect(missing(files).map((m) => m.message)).toEqual([
    '\'hello\' reads k8s/apps/hello (delivery.apps.hello.overlayPath), which does not exist; Argo CD would fail with "app path does not exist". ' +
    'Write k8s/apps/hello/kustomization.yaml with `resources: [../../generated/apps/hello]`.',
  ]);
});

test('fails for an overlay that is plain manifests, or a kustomization that does not build the generated folder', () => {
  const plain = referenceCheckout();
  delete plain['k8s/apps/hello/kustomization.yaml'];
  plain['k8s/apps/hello/hello.yaml'] = manifest('ConfigMap', 'hello');
  expect(missing(plain).map((m) => m.message)).toEqual([
    '\'hello\' reads its overlay k8s/apps/hello (delivery.apps.hello.overlayPath), which must build the generated k8s/generated/apps/hello, ' +
    'but k8s/apps/hello has no kustomization; the app\'s generated manifests would never be applied. ' +
    'Write k8s/apps/hello/kustomization.yaml with `resources: [../../generated/apps/hello]`.',
  ]);
  const other = referenceCheckout();
  other['k8s/apps/hello/kustomization.yaml'] = kustomization(['hello.yaml']);
  other['k8s/apps/hello/hello.yaml'] = manifest('ConfigMap', 'hello');
  expect(missing(other)).toEqual([expect.objectContaining({
    path: 'k8s/generated/apps/hello', type: 'kustomization-resource', applications: ['hello'], referencedBy: 'k8s/apps/hello/kustomization.yaml',
    message: expect.stringContaining('but k8s/apps/hello/kustomization.yaml does not reach it;'),
  })]);
});
