import { Duration, Testing } from 'cdk8s';
import { HomelabApplication, HomelabApplicationProps, withoutEncrypted } from '../../../lib/constructs/argocd/homelab-application';
import { SYNC_OPTIONS, SyncOption } from '../../../lib/constructs/argocd/sync-policy';
import { appProps, find, makeProjectChart, SEED_URL } from './util';

function synthApp(overrides: Partial<HomelabApplicationProps> = {}): { app: HomelabApplication; json: any } {
  const base = makeProjectChart();
  const app = new HomelabApplication(base.chart, 'App', appProps(base, overrides));
  return { app, json: find(Testing.synth(base.chart), 'Application', app.name) };
}

describe('defaults', () => {
  test('automated prune + selfHeal, retry with backoff, no sync options, in-cluster destination', () => {
    // WHEN
    const { app, json } = synthApp();
    // THEN
    expect(app.automatedSync).toBe(true);
    expect(app.retryLimit).toBe(5);
    expect(app.retryBackoffDuration.toSeconds()).toBe(5);
    expect(app.retryBackoffFactor).toBe(2);
    expect(app.retryBackoffMaxDuration.toSeconds()).toBe(180);
    expect(app.syncOptions).toEqual([]);
    expect(app.dependsOn).toEqual([]);
    expect(app.clusterResources).toEqual([]);
    expect(app.spansProjectNamespaces).toBe(false);
    expect(json.metadata).toMatchObject({ name: 'demo', namespace: 'argocd' });
    expect(json.spec.project).toBe('homelab');
    expect(json.spec.destination).toEqual({ server: 'https://kubernetes.default.svc', namespace: 'demo' });
    expect(json.spec.syncPolicy).toEqual({
      automated: { prune: true, selfHeal: true },
      retry: { limit: 5, backoff: { duration: '5s', factor: 2, maxDuration: '3m' } },
    });
    expect(json.spec.ignoreDifferences).toBeUndefined();
  });

  test('the wave is written as the sync-wave annotation string', () => {
    const { json } = synthApp({ syncWave: 3 });
    expect(json.metadata.annotations).toEqual({ 'argocd.argoproj.io/sync-wave': '3' });
  });

  test('all props', () => {
    // GIVEN
    const base = makeProjectChart();
    const dep = new HomelabApplication(base.chart, 'Dep', appProps(base, { name: 'dep', syncWave: 0 }));
    const props: Required<HomelabApplicationProps> = {
      name: 'full',
      project: base.project,
      repo: base.repo,
      sources: [{ kind: 'git-path', path: 'k8s/apps/full' }],
      namespace: 'full',
      syncWave: 2,
      dependsOn: [dep],
      syncOptions: ['CreateNamespace', 'ServerSideApply'],
      managedNamespaceMetadata: { labels: { b: '2', a: '1' }, annotations: { note: 'x' } },
      ignoreDifferences: [{ group: 'apps', kind: 'Deployment', jsonPointers: ['/spec/replicas'] }],
      automatedSync: false,
      retryLimit: 3,
      retryBackoffDuration: Duration.seconds(10),
      retryBackoffFactor: 3,
      retryBackoffMaxDuration: Duration.hours(1),
      clusterResources: ['ClusterRole'],
      additionalNamespaces: ['other'],
      spansProjectNamespaces: false,
      appTier: false,
    };
    // WHEN
    const app = new HomelabApplication(base.chart, 'Full', props);
    const json = find(Testing.synth(base.chart), 'Application', 'full');
    // THEN
    expect(app.dependsOn).toEqual([dep]);
    expect(app.namespaces).toEqual(['full', 'other']);
    expect(app.clusterResources).toEqual([
      { group: '', kind: 'Namespace' },
      { group: 'rbac.authorization.k8s.io', kind: 'ClusterRole' },
    ]);
    expect(json.spec.syncPolicy).toEqual({
      syncOptions: ['CreateNamespace=true', 'ServerSideApply=true'],
      managedNamespaceMetadata: { labels: { a: '1', b: '2' }, annotations: { note: 'x' } },
      retry: { limit: 3, backoff: { duration: '10s', factor: 3, maxDuration: '1h' } },
    });
    expect(json.spec.ignoreDifferences).toEqual([{ group: 'apps', kind: 'Deployment', jsonPointers: ['/spec/replicas'] }]);
  });
});

describe('sync options', () => {
  test.each(SYNC_OPTIONS.map((o) => [o]))('%s renders as <Option>=true', (option: SyncOption) => {
    const { app, json } = synthApp({ syncOptions: [option] });
    expect(app.syncOptions).toEqual([option]);
    expect(json.spec.syncPolicy.syncOptions).toEqual([`${option}=true`]);
  });

  test('are a set: duplicates collapse, order is fixed', () => {
    const { json } = synthApp({ syncOptions: ['SkipDryRunOnMissingResource', 'CreateNamespace', 'PruneLast', 'CreateNamespace'] });
    expect(json.spec.syncPolicy.syncOptions).toEqual(['CreateNamespace=true', 'PruneLast=true', 'SkipDryRunOnMissingResource=true']);
  });

  test('CreateNamespace allows the Namespace kind', () => {
    const { app } = synthApp({ syncOptions: ['CreateNamespace'] });
    expect(app.clusterResources).toEqual([{ group: '', kind: 'Namespace' }]);
  });

  test('managedNamespaceMetadata renders with CreateNamespace', () => {
    const { json } = synthApp({ syncOptions: ['CreateNamespace'], managedNamespaceMetadata: { labels: { 'pod-security.kubernetes.io/enforce': 'restricted' } } });
    expect(json.spec.syncPolicy.managedNamespaceMetadata).toEqual({ labels: { 'pod-security.kubernetes.io/enforce': 'restricted' } });
  });

  test('throws on managedNamespaceMetadata without CreateNamespace', () => {
    expect(() => synthApp({ managedNamespaceMetadata: { labels: { a: 'b' } } })).toThrow(new Error(
      'application \'demo\': managedNamespaceMetadata is set but the sync option \'CreateNamespace\' is not; ' +
      'Argo CD applies namespace metadata only to a namespace it creates. ' +
      'Add \'CreateNamespace\' to syncOptions or remove managedNamespaceMetadata.'));
  });
});

describe('sources', () => {
  test('a git path (plain manifests or kustomization) is a single source at the tracked revision', () => {
    const { json } = synthApp({ sources: [{ kind: 'git-path', path: 'k8s/infra/longhorn' }] });
    expect(json.spec.source).toEqual({ repoURL: SEED_URL, targetRevision: 'main', path: 'k8s/infra/longhorn' });
    expect(json.spec.sources).toBeUndefined();
  });

  test('a git path with directory options', () => {
    const { json } = synthApp({ sources: [{ kind: 'git-path', path: 'k8s/infra/iam', recurse: true, include: '*.yaml', exclude: '*-values.yaml' }] });
    expect(json.spec.source.directory).toEqual({ recurse: true, include: '*.yaml', exclude: '{*-values.yaml,*.enc.yaml}' });
  });

  test('a directory source never reads SOPS ciphertext (sops-secrets owns every *.enc.yaml)', () => {
    expect(withoutEncrypted(undefined)).toBe('*.enc.yaml');
    expect(withoutEncrypted('*.enc.yaml')).toBe('*.enc.yaml');
    expect(withoutEncrypted('{a.yaml,b.yaml}')).toBe('{a.yaml,b.yaml,*.enc.yaml}');
    expect(withoutEncrypted('{a.yaml,*.enc.yaml}')).toBe('{a.yaml,*.enc.yaml}');
    const { json } = synthApp({ sources: [{ kind: 'git-path', path: 'k8s/apps/demo', recurse: true }] });
    expect(json.spec.source.directory).toEqual({ recurse: true, exclude: '*.enc.yaml' });
  });

  test('a Helm chart with values from the homelab repo is multi-source with a $values ref', () => {
    const { app, json } = synthApp({
      sources: [{ kind: 'helm-chart', repoURL: 'https://charts.example.com', chart: 'demo', version: '1.2.3', valueFiles: ['k8s/apps/demo/values.yaml'] }],
    });
    expect(json.spec.source).toBeUndefined();
    expect(json.spec.sources).toEqual([
      {
        repoURL: 'https://charts.example.com',
        chart: 'demo',
        targetRevision: '1.2.3',
        helm: { releaseName: 'demo', valueFiles: ['$values/k8s/apps/demo/values.yaml'] },
      },
      { repoURL: SEED_URL, targetRevision: 'main', ref: 'values' },
    ]);
    expect(app.sourceRepoUrls).toEqual(['https://charts.example.com', SEED_URL]);
  });

  test('a Helm chart without values files is a single source that does not use the homelab repo', () => {
    const { app, json } = synthApp({
      sources: [{ kind: 'helm-chart', repoURL: 'https://charts.example.com', chart: 'demo', version: '1.2.3', releaseName: 'rel', skipCrds: true }],
    });
    expect(json.spec.source).toEqual({
      repoURL: 'https://charts.example.com', chart: 'demo', targetRevision: '1.2.3', helm: { releaseName: 'rel', skipCrds: true },
    });
    expect(app.sourceRepoUrls).toEqual(['https://charts.example.com']);
  });

  test('an OCI chart names the chart in the URL and uses path "."', () => {
    const { app, json } = synthApp({
      sources: [{ kind: 'helm-chart', repoURL: 'oci://quay.io/strimzi-helm', chart: 'strimzi-kafka-operator', version: '1.2.0' }],
    });
    expect(json.spec.source).toEqual({
      repoURL: 'oci://quay.io/strimzi-helm/strimzi-kafka-operator', path: '.', targetRevision: '1.2.0', helm: { releaseName: 'demo' },
    });
    expect(app.sourceRepoUrls).toEqual(['oci://quay.io/strimzi-helm/strimzi-kafka-operator']);
  });

  test('a plugin source', () => {
    const { json } = synthApp({ sources: [{ kind: 'plugin', path: '.', pluginName: 'sops' }] });
    expect(json.spec.source).toEqual({ repoURL: SEED_URL, targetRevision: 'main', path: '.', plugin: { name: 'sops' } });
  });

  test('a chart combined with a git path: chart, path, then the $values ref', () => {
    const { app, json } = synthApp({
      sources: [
        { kind: 'helm-chart', repoURL: 'https://charts.example.com', chart: 'demo', version: '1.2.3', valueFiles: ['k8s/apps/demo/values.yaml'] },
        { kind: 'git-path', path: 'k8s/apps/demo/extra' },
      ],
    });
    expect(json.spec.sources).toEqual([
      expect.objectContaining({ chart: 'demo' }),
      { repoURL: SEED_URL, targetRevision: 'main', path: 'k8s/apps/demo/extra' },
      { repoURL: SEED_URL, targetRevision: 'main', ref: 'values' },
    ]);
    expect(app.repoPaths).toEqual(['k8s/apps/demo/extra']);
  });

  test('throws without sources', () => {
    expect(() => synthApp({ sources: [] })).toThrow(new Error(
      'application \'demo\': has no sources. Give it a git path, a Helm chart or a plugin source.'));
  });

  test('throws on a path that is not repo-relative', () => {
    expect(() => synthApp({ sources: [{ kind: 'git-path', path: '../elsewhere' }] })).toThrow(new Error(
      'application \'demo\': source path \'../elsewhere\' must not contain \'..\'.'));
  });

  test('throws on a chart repository that is neither https nor oci', () => {
    expect(() => synthApp({ sources: [{ kind: 'helm-chart', repoURL: '*', chart: 'demo', version: '1.0.0' }] })).toThrow(new Error(
      'application \'demo\': chart repository \'*\' must be an https:// Helm repository or an oci:// registry path.'));
  });
});

describe('unpinned chart versions', () => {
  test.each(['*', '^1.2.0', '~1', '>=1', 'latest', '', '1.x'])('throws on %p, naming the app, the value and the fix', (version) => {
    expect(() => synthApp({
      name: 'grafana',
      sources: [{ kind: 'helm-chart', repoURL: 'https://charts.example.com', chart: 'grafana', version }],
    })).toThrow(new Error(
      `application 'grafana': chart 'grafana' version '${version}' is not pinned. ` +
      'A range, a wildcard, \'latest\' or an empty version lets the chart change under the same commit. ' +
      'Set an exact release version such as \'1.6.0\'.'));
  });
});

describe('dependsOn', () => {
  test('a dependency in an earlier wave is recorded and orders the objects', () => {
    // GIVEN
    const base = makeProjectChart();
    const later = new HomelabApplication(base.chart, 'Later', appProps(base, { name: 'later', syncWave: 8 }));
    const earlier = new HomelabApplication(base.chart, 'Earlier', appProps(base, { name: 'earlier', syncWave: 6, sources: [{ kind: 'git-path', path: 'x' }] }));
    // WHEN
    later.addDependsOn(earlier);
    later.addDependsOn(earlier);
    // THEN
    expect(later.dependsOn).toEqual([earlier]);
    const names = Testing.synth(base.chart).filter((m) => m.kind === 'Application').map((m) => m.metadata.name);
    expect(names.indexOf('earlier')).toBeLessThan(names.indexOf('later'));
  });

  test('throws when the dependency sits in the same wave, naming both apps and their waves', () => {
    const base = makeProjectChart();
    const schemas = new HomelabApplication(base.chart, 'Schemas', appProps(base, { name: 'data-schemas', syncWave: 6, sources: [{ kind: 'git-path', path: 'x' }] }));
    expect(() => new HomelabApplication(base.chart, 'Temporal', appProps(base, { name: 'temporal', syncWave: 6, dependsOn: [schemas] }))).toThrow(new Error(
      'application \'temporal\' (wave 6) depends on \'data-schemas\' (wave 6), but a dependency must sit in a strictly earlier wave. ' +
      'Lower the syncWave of \'data-schemas\' below 6, or raise the syncWave of \'temporal\' above 6.'));
  });

  test('throws when the dependency sits in a later wave', () => {
    const base = makeProjectChart();
    const authentik = new HomelabApplication(base.chart, 'Authentik', appProps(base, { name: 'authentik', syncWave: 3 }));
    const schemas = new HomelabApplication(base.chart, 'Schemas', appProps(base, { name: 'data-schemas', syncWave: 6, sources: [{ kind: 'git-path', path: 'x' }] }));
    expect(() => authentik.addDependsOn(schemas)).toThrow(new Error(
      'application \'authentik\' (wave 3) depends on \'data-schemas\' (wave 6), but a dependency must sit in a strictly earlier wave. ' +
      'Lower the syncWave of \'data-schemas\' below 3, or raise the syncWave of \'authentik\' above 6.'));
  });
});

describe('validation', () => {
  test('throws on a wave outside the table', () => {
    expect(() => synthApp({ syncWave: 9 as any })).toThrow(new Error(
      'application \'demo\': syncWave must be an integer from 0 to 8, got 9. Pick a wave from SYNC_WAVES (lib/shared/sync-waves.ts).'));
  });

  test('an app-tier Application sits after the platform waves, and only there', () => {
    expect(synthApp({ syncWave: 9, appTier: true }).json.metadata.annotations).toEqual({ 'argocd.argoproj.io/sync-wave': '9' });
    expect(synthApp({ syncWave: 12, appTier: true }).app.appTier).toBe(true);
    expect(() => synthApp({ syncWave: 8, appTier: true })).toThrow(new Error(
      'application \'demo\': syncWave must be an integer from 9 to 12 (the app tier\'s waves, after the platform\'s), got 8. ' +
      'An app-tier Application\'s wave is derived from its dependencies: depend on fewer Applications in a row.'));
    expect(() => synthApp({ syncWave: 13 as any, appTier: true })).toThrow(/got 13\. An app-tier/);
  });

  test('throws on an ignoreDifferences entry without fields', () => {
    expect(() => synthApp({ ignoreDifferences: [{ kind: 'Secret' }] })).toThrow(new Error(
      'application \'demo\': ignoreDifferences entry for kind \'Secret\' names no field. ' +
      'Set jsonPointers, jqPathExpressions or managedFieldsManagers.'));
  });

  test('throws on a name that is not a DNS label', () => {
    expect(() => synthApp({ name: 'Demo_App' })).toThrow(/^application 'Demo_App': name must consist of lower case letters/);
  });
});
