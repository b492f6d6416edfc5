// Leaf modules only: the config layer imports nothing of lib/ but lib/shared (.dependency-cruiser.cjs).
import { SOPS_PLUGIN_NAME } from '../shared/names';
import type { ArgoCdConfig, HelmChartSource } from './argocd-config';
import { podSecurityNamespaceMetadata } from '../shared/pod-security';
import { SYNC_WAVES } from '../shared/sync-waves';
import { TEMPORAL_VALUES_CHART_VERSION } from '../shared/temporal-chart';
import { PHASE0_CHARTS } from '../shared/pins';

/**
 * Chart repositories and pinned versions of the reference catalog, from the research snapshot
 * `shared/reference/versions.md` §1. Changing a pin changes the output; nothing here floats.
 */
export const CHART_PINS = {
  // Installed by the runbook in Phase 0 and adopted by the `cilium` Application: one pin for both.
  cilium: PHASE0_CHARTS.cilium,
  coredns: { repoURL: 'https://coredns.github.io/helm', chart: 'coredns', version: '1.46.2' },
  certManager: { repoURL: 'https://charts.jetstack.io', chart: 'cert-manager', version: 'v1.21.1' },
  // Retired upstream in March 2026 (final release); plan the move to a Gateway API implementation.
  ingressNginx: { repoURL: 'https://kubernetes.github.io/ingress-nginx', chart: 'ingress-nginx', version: '4.15.1' },
  // MinIO CE is archived; 7.1.1 is the last operator/tenant release.
  minioOperator: { repoURL: 'https://operator.min.io/', chart: 'operator', version: '7.1.1' },
  minioTenant: { repoURL: 'https://operator.min.io/', chart: 'tenant', version: '7.1.1' },
  kubePrometheusStack: { repoURL: 'https://prometheus-community.github.io/helm-charts', chart: 'kube-prometheus-stack', version: '88.5.3' },
  blackboxExporter: { repoURL: 'https://prometheus-community.github.io/helm-charts', chart: 'prometheus-blackbox-exporter', version: '11.17.2' },
  grafana: { repoURL: 'https://grafana-community.github.io/helm-charts', chart: 'grafana', version: '12.11.1' },
  loki: { repoURL: 'https://grafana-community.github.io/helm-charts', chart: 'loki', version: '18.11.0' },
  // End of life 2026-03-02 (final release); Grafana Alloy replaces it.
  promtail: { repoURL: 'https://grafana.github.io/helm-charts', chart: 'promtail', version: '6.17.1' },
  authentik: { repoURL: 'https://charts.goauthentik.io', chart: 'authentik', version: '2026.8.0' },
  vault: { repoURL: 'https://helm.releases.hashicorp.com', chart: 'vault', version: '0.34.1' },
  cloudflared: { repoURL: 'https://community-charts.github.io/helm-charts', chart: 'cloudflared', version: '2.2.16' },
  homarr: { repoURL: 'https://homarr-labs.github.io/charts/', chart: 'homarr', version: '8.19.0' },
  portainer: { repoURL: 'https://portainer.github.io/k8s/', chart: 'portainer', version: '239.4.0' },
} as const;

/** A pinned chart with its values file(s) in the homelab repository. */
function chart(pin: (typeof CHART_PINS)[keyof typeof CHART_PINS], valueFiles: string[], extra: Partial<HelmChartSource> = {}): HelmChartSource {
  return { kind: 'helm-chart', ...pin, valueFiles, ...extra };
}

/** Namespaces whose pods need host access (CNI agents, node exporters, log shippers). */
const PRIVILEGED = podSecurityNamespaceMetadata('privileged', 'baseline');
/** Third-party charts not audited for the restricted profile. */
const BASELINE = podSecurityNamespaceMetadata('baseline', 'restricted');
/** Pods known to meet the restricted profile. */
const RESTRICTED = podSecurityNamespaceMetadata('restricted');

/**
 * The reference catalog: the platform map of ADR 0001 (Part C), one Application per deployable directory.
 * Values files live next to the directory they configure (`k8s/<layer>/<dir>/<name>-values.yaml`).
 * Generated Applications (projects, sops-secrets, data-schemas, forgejo-mirror, temporal) are configured
 * below their own keys. The CNPG operator, `forgejo-db`, Forgejo and the Longhorn install are Phase-0 only
 * and never appear here.
 */
export const DEFAULT_ARGOCD: ArgoCdConfig = {
  project: 'homelab',
  applications: {
    // k8s/bootstrap: the Phase-0 substrate, adopted by Argo CD.
    'cilium': {
      // Adopts the release the runbook installs (`cilium.adoptedBy`): synthesis points it at the generated
      // `<distPath>/bootstrap/NN-cilium/values.yaml`, so it lists no values file of its own.
      syncWave: SYNC_WAVES.SUBSTRATE,
      namespace: 'kube-system',
      sources: [chart(CHART_PINS.cilium, [])],
      clusterResources: ['ClusterRole', 'ClusterRoleBinding', 'IngressClass', 'Namespace'],
      additionalNamespaces: ['cilium-secrets'],
      // The chart generates Hubble's TLS material at render time; comparing it would never settle, and applying it
      // would replace the CA and certificates the running release (installed by the runbook) uses:
      // RespectIgnoreDifferences keeps the live values during a sync as well.
      syncOptions: ['RespectIgnoreDifferences'],
      ignoreDifferences: [
        { kind: 'Secret', name: 'cilium-ca', namespace: 'kube-system', jsonPointers: ['/data'] },
        { kind: 'Secret', name: 'hubble-server-certs', namespace: 'kube-system', jsonPointers: ['/data'] },
        { kind: 'Secret', name: 'hubble-relay-client-certs', namespace: 'kube-system', jsonPointers: ['/data'] },
      ],
    },
    'coredns': {
      syncWave: SYNC_WAVES.SUBSTRATE,
      namespace: 'kube-system',
      sources: [chart(CHART_PINS.coredns, ['k8s/bootstrap/coredns/values.yaml'])],
      clusterResources: ['ClusterRole', 'ClusterRoleBinding'],
    },
    'cert-manager': {
      syncWave: SYNC_WAVES.PLATFORM,
      namespace: 'cert-manager',
      sources: [chart(CHART_PINS.certManager, ['k8s/bootstrap/cert-manager/values.yaml'])],
      syncOptions: ['CreateNamespace', 'ServerSideApply'],
      managedNamespaceMetadata: RESTRICTED,
      clusterResources: ['CustomResourceDefinition', 'ClusterRole', 'ClusterRoleBinding', 'ValidatingWebhookConfiguration',
        'MutatingWebhookConfiguration', 'ClusterIssuer'],
    },
    'ingress': {
      syncWave: SYNC_WAVES.PLATFORM,
      namespace: 'ingress-nginx',
      sources: [chart(CHART_PINS.ingressNginx, ['k8s/bootstrap/ingress/values.yaml'], { releaseName: 'ingress-nginx' })],
      syncOptions: ['CreateNamespace'],
      managedNamespaceMetadata: BASELINE,
      clusterResources: ['ClusterRole', 'ClusterRoleBinding', 'IngressClass', 'ValidatingWebhookConfiguration'],
    },

    // k8s/infra: the platform tier.
    'longhorn-config': {
      // The Longhorn install itself is Phase 0; this is its configuration (StorageClasses, recurring jobs).
      syncWave: SYNC_WAVES.PLATFORM,
      namespace: 'longhorn-system',
      sources: [{ kind: 'git-path', path: 'k8s/infra/longhorn' }],
      clusterResources: ['StorageClass'],
    },
    'minio-operator': {
      syncWave: SYNC_WAVES.SUBSTRATE,
      namespace: 'minio-operator',
      sources: [chart(CHART_PINS.minioOperator, ['k8s/infra/minio/minio-operator-values.yaml'])],
      syncOptions: ['CreateNamespace', 'ServerSideApply'],
      managedNamespaceMetadata: BASELINE,
      clusterResources: ['CustomResourceDefinition', 'ClusterRole', 'ClusterRoleBinding'],
    },
    'minio-tenant': {
      syncWave: SYNC_WAVES.PLATFORM,
      namespace: 'minio',
      sources: [chart(CHART_PINS.minioTenant, ['k8s/infra/minio/tenant-values.yaml'])],
      syncOptions: ['CreateNamespace'],
      managedNamespaceMetadata: BASELINE,
      dependsOn: ['minio-operator'],
    },
    'prometheus-crds': {
      syncWave: SYNC_WAVES.SUBSTRATE,
      namespace: 'monitoring',
      sources: [{ kind: 'git-path', path: 'k8s/infra/monitoring/crds' }],
      // The Prometheus Operator CRDs exceed the 256 KiB last-applied annotation.
      syncOptions: ['CreateNamespace', 'ServerSideApply'],
      managedNamespaceMetadata: PRIVILEGED,
      clusterResources: ['CustomResourceDefinition'],
    },
    'prometheus': {
      syncWave: SYNC_WAVES.PLATFORM,
      namespace: 'monitoring',
      sources: [chart(CHART_PINS.kubePrometheusStack, ['k8s/infra/monitoring/prometheus-values.yaml'], { skipCrds: true })],
      syncOptions: ['ServerSideApply'],
      clusterResources: ['ClusterRole', 'ClusterRoleBinding', 'ValidatingWebhookConfiguration', 'MutatingWebhookConfiguration'],
      dependsOn: ['prometheus-crds'],
    },
    'blackbox': {
      syncWave: SYNC_WAVES.PLATFORM,
      namespace: 'monitoring',
      sources: [chart(CHART_PINS.blackboxExporter, ['k8s/infra/monitoring/blackbox-values.yaml'])],
      dependsOn: ['prometheus-crds'],
    },
    'monitoring-config': {
      // One kustomization without a namespace transformer: PrometheusRules and ServiceMonitors live next to
      // the apps they watch, and dashboard ConfigMaps are too large for client-side apply.
      syncWave: SYNC_WAVES.OBSERVABILITY,
      namespace: 'monitoring',
      sources: [{ kind: 'git-path', path: 'k8s/infra/monitoring' }],
      syncOptions: ['ServerSideApply'],
      spansProjectNamespaces: true,
      dependsOn: ['prometheus'],
    },
    'grafana': {
      syncWave: SYNC_WAVES.OBSERVABILITY,
      namespace: 'monitoring',
      sources: [chart(CHART_PINS.grafana, ['k8s/infra/logging/grafana-values.yaml'])],
      clusterResources: ['ClusterRole', 'ClusterRoleBinding'],
    },
    'loki': {
      syncWave: SYNC_WAVES.OBSERVABILITY,
      namespace: 'logging',
      sources: [chart(CHART_PINS.loki, ['k8s/infra/logging/loki-values.yaml'])],
      syncOptions: ['CreateNamespace'],
      managedNamespaceMetadata: PRIVILEGED,
      clusterResources: ['ClusterRole', 'ClusterRoleBinding'],
    },
    'promtail': {
      syncWave: SYNC_WAVES.OBSERVABILITY,
      namespace: 'logging',
      sources: [chart(CHART_PINS.promtail, ['k8s/infra/logging/promtail-values.yaml'])],
      syncOptions: ['CreateNamespace'],
      managedNamespaceMetadata: PRIVILEGED,
      clusterResources: ['ClusterRole', 'ClusterRoleBinding'],
      dependsOn: ['prometheus-crds'],
    },
    'iam-jobs': {
      syncWave: SYNC_WAVES.IDENTITY_AND_CICD,
      namespace: 'iam',
      // The folder also holds the authentik and vault values files, which are not manifests.
      sources: [{ kind: 'git-path', path: 'k8s/infra/iam', exclude: '*-values.yaml' }],
      syncOptions: ['CreateNamespace'],
      managedNamespaceMetadata: BASELINE,
    },
    'vault': {
      syncWave: SYNC_WAVES.IDENTITY_AND_CICD,
      namespace: 'iam',
      sources: [chart(CHART_PINS.vault, ['k8s/infra/iam/vault-values.yaml'])],
      // Same wave as iam-jobs, so either may be first to need the namespace; both declare the same metadata.
      syncOptions: ['CreateNamespace'],
      managedNamespaceMetadata: BASELINE,
      clusterResources: ['ClusterRole', 'ClusterRoleBinding', 'MutatingWebhookConfiguration'],
    },
    'authentik': {
      // Authentik's database (ddb-cluster/authentik) is delivered by data-schemas in wave 6, so Authentik
      // cannot be healthy before wave 7: in wave 3 it would hold the root app at wave 3 forever.
      syncWave: SYNC_WAVES.DATA_CONSUMERS,
      namespace: 'iam',
      sources: [chart(CHART_PINS.authentik, ['k8s/infra/iam/authentik-values.yaml'])],
      clusterResources: ['ClusterRole', 'ClusterRoleBinding'],
      dependsOn: ['data-schemas'],
    },
    'cicd-config': {
      // The Forgejo OAuth setup Job, in Forgejo's (Phase-0) namespace.
      syncWave: SYNC_WAVES.IDENTITY_AND_CICD,
      namespace: 'cicd',
      sources: [{ kind: 'git-path', path: 'k8s/infra/cicd' }],
    },

    // k8s/apps: workloads.
    'queue-crd': {
      syncWave: SYNC_WAVES.MESSAGING_CRDS,
      namespace: 'messaging',
      sources: [{ kind: 'git-path', path: 'k8s/apps/messaging/queue-crd' }],
      syncOptions: ['CreateNamespace', 'ServerSideApply'],
      managedNamespaceMetadata: BASELINE,
      clusterResources: ['CustomResourceDefinition'],
    },
    'kafka-cluster': {
      syncWave: SYNC_WAVES.DATA,
      namespace: 'messaging',
      sources: [{ kind: 'git-path', path: 'k8s/apps/messaging/kafka-cluster' }],
      dependsOn: ['queue-crd'],
    },
    'management-service': {
      syncWave: SYNC_WAVES.DATA_CONSUMERS,
      namespace: 'messaging',
      sources: [{ kind: 'git-path', path: 'k8s/apps/messaging/management-service' }],
      dependsOn: ['kafka-cluster'],
    },
    'cloudflared': {
      syncWave: SYNC_WAVES.APPS,
      namespace: 'cloudflared',
      sources: [chart(CHART_PINS.cloudflared, ['k8s/apps/cloudflared/values.yaml'])],
      syncOptions: ['CreateNamespace'],
      managedNamespaceMetadata: RESTRICTED,
    },
    'duckdns': {
      syncWave: SYNC_WAVES.APPS,
      namespace: 'duckdns',
      sources: [{ kind: 'git-path', path: 'k8s/apps/duckdns' }],
      syncOptions: ['CreateNamespace'],
      managedNamespaceMetadata: BASELINE,
    },
    'homarr': {
      syncWave: SYNC_WAVES.APPS,
      namespace: 'homarr',
      sources: [chart(CHART_PINS.homarr, ['k8s/apps/homarr/values.yaml'])],
      syncOptions: ['CreateNamespace'],
      managedNamespaceMetadata: BASELINE,
    },
    'portainer': {
      syncWave: SYNC_WAVES.APPS,
      namespace: 'portainer',
      sources: [chart(CHART_PINS.portainer, ['k8s/apps/portainer/values.yaml'])],
      syncOptions: ['CreateNamespace'],
      managedNamespaceMetadata: BASELINE,
      clusterResources: ['ClusterRoleBinding'],
    },
  },
  // Experimental, deliberately without an Application (ADR 0001: applications/{dev-tools,forge,llm,shadowsocks}).
  unmanaged: ['k8s/apps/dev-tools', 'k8s/apps/forge', 'k8s/apps/llm', 'k8s/apps/shadowsocks'],
  temporal: {
    cluster: 'ddb-cluster',
    defaultDatabase: 'temporal',
    visibilityDatabase: 'temporal_visibility',
    chartVersion: TEMPORAL_VALUES_CHART_VERSION,
    syncWave: SYNC_WAVES.APPS,
  },
  dataSchemas: { syncWave: SYNC_WAVES.DATA },
  sopsSecrets: { syncWave: SYNC_WAVES.SUBSTRATE, pluginName: SOPS_PLUGIN_NAME },
  forgejoMirror: { syncWave: SYNC_WAVES.IDENTITY_AND_CICD },
};
