import { Testing } from 'cdk8s';
import { HomelabApplication } from '../../../lib/constructs/argocd/homelab-application';
import { HomelabProject, HomelabProjectProps } from '../../../lib/constructs/argocd/homelab-project';
import { HomelabRepo } from '../../../lib/constructs/argocd/homelab-repo';
import { appProps, find, makeProjectChart, SEED_URL } from './util';

describe('HomelabProject', () => {
  test('defaults: name homelab in namespace argocd, never pruned', () => {
    const { chart, project } = makeProjectChart();
    expect(project.name).toBe('homelab');
    expect(project.namespace).toBe('argocd');
    const json = find(Testing.synth(chart), 'AppProject', 'homelab');
    expect(json.metadata.namespace).toBe('argocd');
    expect(json.metadata.annotations).toEqual({ 'argocd.argoproj.io/sync-options': 'Prune=false' });
  });

  test('all props', () => {
    const chart = Testing.chart();
    const repo = new HomelabRepo({ url: SEED_URL, targetRevision: 'main', distPath: 'k8s/generated' });
    const props: Required<HomelabProjectProps> = { repo, name: 'lab', namespace: 'gitops' };
    const project = new HomelabProject(chart, 'Project', props);
    expect(find(Testing.synth(chart), 'AppProject', 'lab').metadata.namespace).toBe(project.namespace);
    expect(project.sourceRepos).toEqual([SEED_URL]);
  });

  test('throws on the name default', () => {
    const chart = Testing.chart();
    const repo = new HomelabRepo({ url: SEED_URL, targetRevision: 'main', distPath: 'k8s/generated' });
    expect(() => new HomelabProject(chart, 'Project', { repo, name: 'default' })).toThrow(new Error(
      'AppProject name \'default\' is not allowed: it is Argo CD\'s built-in catch-all project, which permits every repository, ' +
      'destination and cluster resource. Use a dedicated project such as \'homelab\'.'));
  });

  test('contains exactly what its Applications use: repos, destinations, cluster kinds', () => {
    // GIVEN
    const base = makeProjectChart();
    new HomelabApplication(base.chart, 'A', appProps(base, {
      name: 'a',
      namespace: 'ns-b',
      sources: [{ kind: 'helm-chart', repoURL: 'https://z.example.com', chart: 'a', version: '1.0.0', valueFiles: ['k8s/a/values.yaml'] }],
      syncOptions: ['CreateNamespace'],
      clusterResources: ['ClusterRoleBinding', 'CustomResourceDefinition'],
    }));
    new HomelabApplication(base.chart, 'B', appProps(base, {
      name: 'b',
      namespace: 'ns-a',
      additionalNamespaces: ['ns-c'],
      sources: [
        { kind: 'helm-chart', repoURL: 'https://a.example.com', chart: 'b', version: '2.0.0' },
        { kind: 'helm-chart', repoURL: 'https://z.example.com', chart: 'b2', version: '2.0.0' },
      ],
      clusterResources: ['ClusterRole'],
    }));
    // WHEN
    const json = find(Testing.synth(base.chart), 'AppProject', 'homelab');
    // THEN
    expect(json.spec.sourceRepos).toEqual([SEED_URL, 'https://a.example.com', 'https://z.example.com']);
    expect(json.spec.destinations).toEqual(['ns-a', 'ns-b', 'ns-c'].map((namespace) => ({ namespace, server: 'https://kubernetes.default.svc' })));
    expect(json.spec.clusterResourceWhitelist).toEqual([
      { group: '', kind: 'Namespace' },
      { group: 'apiextensions.k8s.io', kind: 'CustomResourceDefinition' },
      { group: 'rbac.authorization.k8s.io', kind: 'ClusterRole' },
      { group: 'rbac.authorization.k8s.io', kind: 'ClusterRoleBinding' },
    ]);
    expect(JSON.stringify(json.spec)).not.toContain('"*"');
  });

  test('an Application spanning the project writes to every other Application\'s namespaces', () => {
    const base = makeProjectChart();
    new HomelabApplication(base.chart, 'A', appProps(base, { name: 'a', namespace: 'ns-a', additionalNamespaces: ['ns-x'] }));
    const sops = new HomelabApplication(base.chart, 'Sops', appProps(base, {
      name: 'sops-secrets', namespace: 'argocd', spansProjectNamespaces: true, sources: [{ kind: 'plugin', path: '.', pluginName: 'sops' }],
    }));
    expect(base.project.namespacesSpannedBy(sops)).toEqual(['ns-a', 'ns-x']);
    expect(base.project.destinationNamespaces).toEqual(['argocd', 'ns-a', 'ns-x']);
  });

  test('throws on a second Application of the same name', () => {
    const base = makeProjectChart();
    new HomelabApplication(base.chart, 'A', appProps(base));
    expect(() => new HomelabApplication(base.chart, 'B', appProps(base))).toThrow(new Error(
      'Application with name \'demo\' already exists in project \'homelab\'. Give each Application a unique name.'));
  });

  test('fails validation when two Applications use the same path', () => {
    const base = makeProjectChart();
    new HomelabApplication(base.chart, 'A', appProps(base, { name: 'a' }));
    new HomelabApplication(base.chart, 'B', appProps(base, { name: 'b' }));
    expect(base.project.node.validate()).toEqual([
      'applications \'a\' and \'b\' both use path \'k8s/apps/demo\'; every deployable directory is the source of exactly one ' +
      'Application. Remove the path from one of them.',
    ]);
  });

  test('fails validation when two Applications set different metadata on one namespace', () => {
    const base = makeProjectChart();
    new HomelabApplication(base.chart, 'A', appProps(base, {
      name: 'a', syncOptions: ['CreateNamespace'], managedNamespaceMetadata: { labels: { x: '1' } }, sources: [{ kind: 'git-path', path: 'a' }],
    }));
    new HomelabApplication(base.chart, 'B', appProps(base, {
      name: 'b', syncOptions: ['CreateNamespace'], managedNamespaceMetadata: { labels: { x: '2' } }, sources: [{ kind: 'git-path', path: 'b' }],
    }));
    new HomelabApplication(base.chart, 'C', appProps(base, {
      name: 'c', syncOptions: ['CreateNamespace'], managedNamespaceMetadata: { labels: { x: '1' } }, sources: [{ kind: 'git-path', path: 'c' }],
    }));
    expect(base.project.node.validate()).toEqual([
      'applications \'a\' and \'b\' set different managedNamespaceMetadata on namespace \'demo\'; Argo CD would flip the namespace ' +
      'between them. Set it on one of them only, or make them equal.',
    ]);
  });
});
