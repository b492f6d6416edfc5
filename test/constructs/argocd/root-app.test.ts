import { Testing } from 'cdk8s';
import { RootApp, RootAppProps } from '../../../lib/constructs/argocd/root-app';
import { find, makeProjectChart, SEED_URL } from './util';

test('the root app syncs <distPath>/argocd/apps into argocd, in project homelab', () => {
  // GIVEN
  const { chart, repo, project } = makeProjectChart();
  // WHEN
  const root = new RootApp(chart, 'Root', { project, repo });
  // THEN
  expect(root.name).toBe('root');
  expect(root.appsPath).toBe('k8s/generated/argocd/apps');
  const json = find(Testing.synth(chart), 'Application', 'root');
  expect(json.metadata.namespace).toBe('argocd');
  expect(json.spec.project).toBe('homelab');
  expect(json.spec.destination).toEqual({ server: 'https://kubernetes.default.svc', namespace: 'argocd' });
  expect(json.spec.source).toEqual({ repoURL: SEED_URL, targetRevision: 'main', path: 'k8s/generated/argocd/apps' });
  expect(json.spec.syncPolicy.automated).toEqual({ prune: true, selfHeal: true });
});

test('all props', () => {
  const { chart, repo, project } = makeProjectChart();
  const props: Required<RootAppProps> = { project, repo, name: 'homelab-root' };
  const root = new RootApp(chart, 'Root', props);
  expect(find(Testing.synth(chart), 'Application', 'homelab-root').metadata.name).toBe(root.name);
});
