import { Construct } from 'constructs';
import { HomelabApplication } from '../argocd/homelab-application';
import { HomelabProject } from '../argocd/homelab-project';
import { HomelabRepo } from '../argocd/homelab-repo';
import { ManagedNamespaceMetadata } from '../argocd/sync-policy';
import { ARGOCD_DIST } from '../../shared/dist-layout';
import { KYVERNO_CHART } from '../../shared/kyverno-chart';
import { SyncWave } from '../../shared/sync-waves';
import { kyvernoValues } from './kyverno-values';

/** Properties for `KyvernoApplication`. */
export interface KyvernoApplicationProps {
  readonly project: HomelabProject;
  readonly repo: HomelabRepo;
  /** Sync wave, derived from the Applications Kyverno needs. */
  readonly syncWave: SyncWave;
  /**
   * Name of the Application and Helm release.
   * @default 'kyverno'
   */
  readonly name?: string;
  /**
   * Namespace Kyverno runs in; Argo CD creates it. Kyverno's webhooks never see it (the chart's `excludeKyvernoNamespace`).
   * @default 'kyverno'
   */
  readonly namespace?: string;
  /**
   * Chart version; must be the one the values are written for.
   * @default KYVERNO_CHART.version ('3.9.0')
   */
  readonly chartVersion?: string;
  /**
   * Namespaces no Kyverno webhook may see (the chart's `config.webhooks.namespaceSelector`); `kube-system` is always added.
   * @default ['kube-system']
   */
  readonly excludedNamespaces?: readonly string[];
  /**
   * Pods of the admission controller.
   * @default 3
   */
  readonly admissionControllerReplicas?: number;
  /**
   * Applications that must be healthy first.
   * @default []
   */
  readonly dependsOn?: readonly HomelabApplication[];
  /**
   * Metadata of the namespace Argo CD creates.
   * @default - none
   */
  readonly managedNamespaceMetadata?: ManagedNamespaceMetadata;
}

/**
 * Kyverno from its Helm chart, with generated values (`dist/values/<name>.yaml`, read through the `$values` ref) written
 * for chart `KYVERNO_CHART.version`: the namespaces its webhooks never see, the bootstrap-resource exclusion of its Fail
 * webhooks, and the admission controller's replicas.
 *
 * The chart renders CRDs, ClusterRoles and ClusterRoleBindings as its cluster-scoped objects (chart 3.9.0 templates; the
 * FlowSchemas and cert-manager issuers are off by default). Kyverno registers its webhook configurations itself at run
 * time, so Argo CD never applies one and the project need not allow them. Server-side apply, because the CRDs exceed the
 * annotation limit of client-side apply (chart README "Notes on using ArgoCD").
 *
 * @see https://github.com/kyverno/kyverno/tree/kyverno-chart-3.9.0/charts/kyverno
 */
export class KyvernoApplication extends HomelabApplication {
  /** The generated values. */
  public readonly values: Readonly<Record<string, unknown>>;
  /** Path of the values file relative to `dist/`. */
  public readonly valuesFile: string;
  public readonly chartVersion: string;
  /** Namespaces no Kyverno webhook sees besides Kyverno's own, sorted. */
  public readonly excludedNamespaces: readonly string[];
  public readonly admissionControllerReplicas: number;

  constructor(scope: Construct, id: string, props: KyvernoApplicationProps) {
    const name = props.name ?? 'kyverno';
    const chartVersion = props.chartVersion ?? KYVERNO_CHART.version;
    if (chartVersion !== KYVERNO_CHART.version) {
      throw new Error(`kyverno: chart version '${chartVersion}' differs from '${KYVERNO_CHART.version}', the version the generated values ` +
        'are written for. Review lib/constructs/delivery/kyverno-values.ts against the new chart and update KYVERNO_CHART.');
    }
    const excludedNamespaces = [...new Set(['kube-system', ...(props.excludedNamespaces ?? [])])].sort();
    const admissionControllerReplicas = props.admissionControllerReplicas ?? 3;
    const values = kyvernoValues({ excludedNamespaces, admissionControllerReplicas });
    const valuesFile = `${ARGOCD_DIST.values}/${name}.yaml`;

    super(scope, id, {
      name,
      project: props.project,
      repo: props.repo,
      sources: [{ kind: 'helm-chart', repoURL: KYVERNO_CHART.repoURL, chart: KYVERNO_CHART.chart, version: chartVersion,
        valueFiles: [props.repo.distFile(valuesFile)] }],
      namespace: props.namespace ?? 'kyverno',
      syncWave: props.syncWave,
      syncOptions: ['CreateNamespace', 'ServerSideApply'],
      managedNamespaceMetadata: props.managedNamespaceMetadata,
      clusterResources: ['CustomResourceDefinition', 'ClusterRole', 'ClusterRoleBinding'],
      // The chart's aggregated ClusterRoles get their rules from the controller manager, which Argo CD would otherwise
      // report as drift forever (chart README "Notes on using ArgoCD"). Argo CD evaluates the expression as `del(<expr>)`
      // (argo-cd v3.5.1 util/argo/normalizers/diff_normalizer.go:162): only ClusterRoles with an aggregationRule lose `rules`.
      ignoreDifferences: [{ group: 'rbac.authorization.k8s.io', kind: 'ClusterRole', jqPathExpressions: ['select(.aggregationRule != null) | .rules'] }],
      dependsOn: props.dependsOn,
    });
    this.values = values;
    this.valuesFile = valuesFile;
    this.chartVersion = chartVersion;
    this.excludedNamespaces = excludedNamespaces;
    this.admissionControllerReplicas = admissionControllerReplicas;
  }
}
