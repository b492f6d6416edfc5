import { DEFAULT_PHASE0_COMPONENTS } from '../../lib/config/validate-config';
import { CHART_PINS, DEFAULT_ARGOCD } from '../../lib/config/default-catalog';
import { REFERENCE_HOMELAB } from '../../lib/config/defaults';
import { tree } from '../constructs/argocd/util';

/** The platform map of ADR 0001 Part C: folder -> Application -> wave. */
const PLATFORM_MAP: Record<string, number> = {
  // k8s/bootstrap (adopted substrate)
  'cilium': 0, 'coredns': 0, 'cert-manager': 1, 'ingress': 1,
  // k8s/infra
  'longhorn-config': 1, 'minio-tenant': 1, 'monitoring-config': 2, 'prometheus-crds': 0, 'prometheus': 1, 'blackbox': 1,
  'grafana': 2, 'loki': 2, 'promtail': 2, 'data-schemas': 6, 'iam-jobs': 3, 'forgejo-runner': 3, 'cicd-config': 3,
  // k8s/apps
  'cloudflared': 8, 'duckdns': 8, 'homarr': 8, 'portainer': 8, 'temporal': 8,
  // generated
  'sops-secrets': 0, 'forgejo-mirror': 3, 'projects': 0,
};
/** Applications the map names without a wave ("from its values"), with the wave the catalog gives them. */
const FROM_VALUES: Record<string, number> = { 'minio-operator': 0, 'authentik': 7, 'vault': 3 };

test('the reference homelab uses the default catalog', () => {
  expect(REFERENCE_HOMELAB.argocd).toBe(DEFAULT_ARGOCD);
});

test('the catalog has every Application of the platform map in its wave', () => {
  const apps = tree().applications;
  for (const [name, wave] of Object.entries({ ...PLATFORM_MAP, ...FROM_VALUES })) {
    expect({ name, wave: apps.get(name)?.syncWave }).toEqual({ name, wave });
  }
});

test('messaging sits in waves 5 to 7, CRD first', () => {
  const apps = tree().applications;
  expect(apps.get('queue-crd')!.syncWave).toBe(5);
  expect(apps.get('kafka-cluster')!.syncWave).toBe(6);
  expect(apps.get('management-service')!.syncWave).toBe(7);
  expect(apps.get('management-service')!.dependsOn.map((a) => a.name)).toEqual(['kafka-cluster']);
});

test('the catalog has nothing beyond the map', () => {
  const names = [...tree().applications.keys()].sort();
  expect(names).toEqual([...Object.keys(PLATFORM_MAP), ...Object.keys(FROM_VALUES), 'queue-crd', 'kafka-cluster', 'management-service',
    // generated from postgresClusters.<name>.backup, not from the catalog
    'backup-checks',
    // generated from delivery.e2e (the E2E smoke journeys), not from the catalog
    'e2e-smoke'].sort());
});

test('no Application is named like a Phase-0 component', () => {
  const names = [...tree().applications.keys(), 'root'];
  for (const component of [...DEFAULT_PHASE0_COMPONENTS, 'forgejo-db', 'cnpg', 'longhorn-install']) {
    expect(names).not.toContain(component);
  }
});

test('the experimental directories are listed as unmanaged, not silently skipped', () => {
  expect(DEFAULT_ARGOCD.unmanaged).toEqual(['k8s/apps/dev-tools', 'k8s/apps/forge', 'k8s/apps/llm', 'k8s/apps/shadowsocks']);
});

test('Temporal and authentik wait for data-schemas; nothing depends on a later wave', () => {
  const apps = tree().applications;
  expect(apps.get('temporal')!.dependsOn.map((a) => a.name)).toEqual(['data-schemas']);
  expect(apps.get('authentik')!.dependsOn.map((a) => a.name)).toEqual(['data-schemas']);
  for (const app of apps.values()) for (const dep of app.dependsOn) expect(dep.syncWave).toBeLessThan(app.syncWave);
});

test('monitoring-config is one kustomization with ServerSideApply; the Prometheus CRDs too', () => {
  const apps = tree().applications;
  expect(apps.get('monitoring-config')!.sources).toEqual([{ kind: 'git-path', path: 'k8s/infra/monitoring' }]);
  expect(apps.get('monitoring-config')!.syncOptions).toContain('ServerSideApply');
  expect(apps.get('prometheus-crds')!.syncOptions).toContain('ServerSideApply');
});

test('sops-secrets reads every *.enc.yaml from the repository root through the sops plugin', () => {
  const sops = tree().applications.get('sops-secrets')!;
  expect(sops.sources).toEqual([{ kind: 'plugin', path: '.', pluginName: 'sops' }]);
});

test('every chart pin of the catalog is exact and matches versions.md', () => {
  expect(Object.fromEntries(Object.entries(CHART_PINS).map(([k, v]) => [k, v.version]))).toEqual({
    cilium: '1.20.0', coredns: '1.46.2', certManager: 'v1.21.1', ingressNginx: '4.15.1', minioOperator: '7.1.1', minioTenant: '7.1.1',
    kubePrometheusStack: '88.5.3', blackboxExporter: '11.17.2', grafana: '12.11.1', loki: '18.11.0', promtail: '6.17.1',
    authentik: '2026.8.0', vault: '0.34.1', cloudflared: '2.2.16', homarr: '8.19.0', portainer: '239.4.0',
  });
});
