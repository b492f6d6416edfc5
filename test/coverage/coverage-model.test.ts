import { parseAllDocuments } from 'yaml';
import { withoutEncrypted } from '../../lib/constructs/argocd/homelab-application';
import { SOPS_PLUGIN_NAME } from '../../lib/constructs/argocd/argocd-install';
import { REFERENCE_HOMELAB } from '../../lib/config/defaults';
import { isInside, SOPS_ENCRYPTED_SUFFIX } from '../../lib/coverage/coverage-model';
import { synthesized, withArgocd } from './fixture';

test('every Application, the root app-of-apps included, in name order', () => {
  const { model } = synthesized();
  expect(model.applications).toEqual([...model.applications].sort());
  expect(model.applications).toEqual(expect.arrayContaining(['root', 'projects', 'sops-secrets', 'temporal', 'duckdns']));
  // + root, projects, sops-secrets, forgejo-mirror, data-schemas, temporal, backup-checks, and argocd-image-updater (delivery)
  expect(model.applications).toHaveLength(Object.keys(REFERENCE_HOMELAB.argocd.applications).length + 8);
  expect(model.repoUrl).toBe(REFERENCE_HOMELAB.git.githubSeedUrl);
  expect(model.distPath).toBe('k8s/generated');
});

test('sources are read from the rendered Applications, with the config field that sets each', () => {
  const { model } = synthesized();
  expect(model.sources.find((s) => s.application === 'iam-jobs')).toEqual({
    application: 'iam-jobs',
    configPath: 'argocd.applications.iam-jobs.sources[0].path',
    path: 'k8s/infra/iam',
    pluginName: undefined,
    recurse: false,
    include: undefined,
    // As rendered: the Application adds *.enc.yaml to the configured exclude.
    exclude: withoutEncrypted('*-values.yaml'),
  });
  expect(model.sources.find((s) => s.application === 'root')).toMatchObject({ configPath: 'git.distPath', path: 'k8s/generated/argocd/apps' });
  expect(model.sources.find((s) => s.application === 'sops-secrets'))
    .toMatchObject({ configPath: 'argocd.sopsSecrets', path: '.', pluginName: SOPS_PLUGIN_NAME });
  expect(model.valuesFiles.find((v) => v.application === 'prometheus')).toEqual({
    application: 'prometheus',
    configPath: 'argocd.applications.prometheus.sources[0].valueFiles[0]',
    path: 'k8s/infra/monitoring/prometheus-values.yaml',
  });
  expect(model.valuesFiles.find((v) => v.application === 'temporal')).toEqual({
    application: 'temporal', configPath: 'argocd.temporal', path: 'k8s/generated/values/temporal.yaml',
  });
  // Charts come from their own repositories; only homelab-repo paths are listed.
  expect(model.sources.some((s) => s.application === 'prometheus')).toBe(false);
  expect(model.sources.map((s) => s.path)).toEqual([...model.sources.map((s) => s.path)].sort());
});

test('the sops-secrets rule comes from its plugin sources and the plugin\'s generate command', () => {
  // GIVEN the Phase-0 Argo CD install
  const { model, tree } = synthesized();
  const plugin = [...tree.entries()].filter(([p]) => p.startsWith('bootstrap/'))
    .flatMap(([, content]) => parseAllDocuments(content).map((d) => d.toJS()))
    .find((o) => o?.kind === 'ConfigMap' && o.metadata?.name === 'argocd-cmp-sops');
  // THEN the plugin finds exactly the files the audit expects it to
  expect(plugin.data['plugin.yaml']).toContain(`find . -type f -name '*${SOPS_ENCRYPTED_SUFFIX}'`);
  expect(plugin.data['plugin.yaml']).toContain(`name: ${SOPS_PLUGIN_NAME}`);
  expect(model.sopsApplication).toBe('sops-secrets');
  expect(model.sopsPaths).toEqual(['.']);
});

test('unmanaged directories are taken from argocd.unmanaged, without trailing slashes, sorted', () => {
  expect(synthesized().model.unmanaged).toEqual([...(REFERENCE_HOMELAB.argocd.unmanaged ?? [])].sort());
  const config = withArgocd({ unmanaged: ['k8s/apps/zz/', 'k8s/apps/aa'] });
  expect(synthesized(config).model.unmanaged).toEqual(['k8s/apps/aa', 'k8s/apps/zz']);
});

test('isInside: a path is inside itself and its ancestors; . contains everything', () => {
  expect(isInside('k8s/apps/llm', 'k8s/apps/llm')).toBe(true);
  expect(isInside('k8s/apps/llm/x.yaml', 'k8s/apps/llm')).toBe(true);
  expect(isInside('k8s/apps/llm-2', 'k8s/apps/llm')).toBe(false);
  expect(isInside('anything', '.')).toBe(true);
});
