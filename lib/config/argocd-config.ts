/**
 * The steady-state Argo CD part of `HomelabConfig`: the project, one Application per deployable directory,
 * the generated Applications (Temporal, data-schemas, SOPS secrets, the Forgejo mirror) and the directories
 * deliberately left unmanaged. `lib/config/default-catalog.ts` holds the reference catalog.
 */
import type { ApplicationSource } from '../argocd/application-source';
import type { ClusterScopedKind } from '../argocd/cluster-resources';
import type { IgnoreDifference, ManagedNamespaceMetadata, SyncOption } from '../argocd/sync-policy';
import type { SyncWave } from '../argocd/sync-waves';
import type { TemporalSqlPlugin } from '../argocd/temporal/temporal-values';

export type { ApplicationSource, GitPathSource, HelmChartSource, PluginSource } from '../argocd/application-source';
export type { ClusterScopedKind } from '../argocd/cluster-resources';
export type { IgnoreDifference, ManagedNamespaceMetadata, SyncOption } from '../argocd/sync-policy';
export type { SyncWave } from '../argocd/sync-waves';

/** One Argo CD Application of the steady state, keyed by its name in `ArgoCdConfig.applications`. */
export interface ApplicationConfig {
  /** Wave of the root app-of-apps, 0 to 8 (see `SYNC_WAVES`). */
  readonly syncWave: SyncWave;
  /** Destination namespace. */
  readonly namespace: string;
  /** Git paths of the homelab repo, pinned remote Helm charts (values via `$values`), plugin directories. */
  readonly sources: readonly ApplicationSource[];
  /**
   * Other Applications (keys of `applications`, or a generated one such as `data-schemas`) that must be
   * healthy first; each must sit in a strictly earlier wave.
   * @default []
   */
  readonly dependsOn?: readonly string[];
  /**
   * Application-level sync options.
   * @default []
   */
  readonly syncOptions?: readonly SyncOption[];
  /**
   * Metadata of the namespace Argo CD creates; requires `CreateNamespace`.
   * @default - none
   */
  readonly managedNamespaceMetadata?: ManagedNamespaceMetadata;
  /**
   * Fields ignored when comparing live and desired state.
   * @default []
   */
  readonly ignoreDifferences?: readonly IgnoreDifference[];
  /**
   * Cluster-scoped kinds the Application manages (the project's allow-list is their union).
   * @default []
   */
  readonly clusterResources?: readonly ClusterScopedKind[];
  /**
   * Namespaces besides `namespace` that the manifests write to.
   * @default []
   */
  readonly additionalNamespaces?: readonly string[];
  /**
   * The manifests write into other Applications' namespaces (e.g. PrometheusRules next to each app).
   * @default false
   */
  readonly spansProjectNamespaces?: boolean;
  /**
   * Sync automatically with prune and selfHeal.
   * @default true
   */
  readonly automatedSync?: boolean;
}

/** Temporal, on PostgreSQL only (both stores). */
export interface TemporalConfig {
  /** CNPG cluster (a key of `postgresClusters`) that hosts both databases. */
  readonly cluster: string;
  /**
   * PostgreSQL name of the main store's database (a key of `databases`).
   * @default 'temporal'
   */
  readonly defaultDatabase?: string;
  /**
   * PostgreSQL name of the visibility store's database (a key of `databases`).
   * @default 'temporal_visibility'
   */
  readonly visibilityDatabase?: string;
  /**
   * Chart version; must equal the version the generated values are written for.
   * @default '1.6.0'
   */
  readonly chartVersion?: string;
  /**
   * Wave of the Temporal Application.
   * @default 8
   */
  readonly syncWave?: SyncWave;
  /**
   * Namespace of Temporal.
   * @default 'temporal'
   */
  readonly namespace?: string;
  /**
   * SQL plugin and driver of both stores.
   * @default 'postgres12_pgx'
   */
  readonly sqlPlugin?: TemporalSqlPlugin;
  /**
   * History shards; can never change after the first install.
   * @default 512
   */
  readonly numHistoryShards?: number;
  /**
   * Secret in Temporal's namespace with the role's password (key `password`), delivered by SOPS.
   * @default - `<cluster>-<owner>`, the name of the CNPG role Secret
   */
  readonly passwordSecretName?: string;
  /**
   * Values deep-merged over the generated ones; synth refuses any that leave PostgreSQL.
   * @default {}
   */
  readonly valuesOverride?: Readonly<Record<string, unknown>>;
}

/** The Application that carries the CNPG Databases (and Clusters) delivered by Argo CD. */
export interface DataSchemasConfig {
  /**
   * Wave of the `data-schemas` Application.
   * @default 6
   */
  readonly syncWave?: SyncWave;
}

/** The Application that applies every `*.enc.yaml` of the repository through the SOPS plugin. */
export interface SopsSecretsConfig {
  /**
   * Wave of the `sops-secrets` Application.
   * @default 0
   */
  readonly syncWave?: SyncWave;
  /**
   * Config Management Plugin that decrypts (provided by the Phase-0 Argo CD install).
   * @default - `SOPS_PLUGIN_NAME` of the Argo CD install ('sops')
   */
  readonly pluginName?: string;
  /**
   * Destination namespace, used only by a Secret that names no namespace (every encrypted Secret should).
   * @default 'argocd'
   */
  readonly namespace?: string;
}

/** The Job that creates Forgejo's pull-mirror of the GitHub seed. */
export interface ForgejoMirrorConfig {
  /**
   * Wave of the `forgejo-mirror` Application.
   * @default 3
   */
  readonly syncWave?: SyncWave;
  /**
   * Secret (in Forgejo's namespace) with the GitHub fine-grained token, delivered by SOPS.
   * @default 'forgejo-github-mirror-token'
   */
  readonly githubTokenSecret?: string;
  /**
   * Key of the token in `githubTokenSecret`.
   * @default 'token'
   */
  readonly githubTokenKey?: string;
  /**
   * Secret (in Forgejo's namespace) with a Forgejo token allowed to create the repository.
   * @default 'forgejo-admin-token'
   */
  readonly forgejoTokenSecret?: string;
  /**
   * Key of the token in `forgejoTokenSecret`.
   * @default 'token'
   */
  readonly forgejoTokenKey?: string;
  /**
   * How often Forgejo pulls from GitHub.
   * @default '10m0s'
   */
  readonly mirrorInterval?: string;
}

/** The steady-state Argo CD tree. */
export interface ArgoCdConfig {
  /**
   * Name of the one AppProject; `default` is rejected.
   * @default 'homelab'
   */
  readonly project?: string;
  /** One Application per deployable directory, keyed by Application name. */
  readonly applications: Readonly<Record<string, ApplicationConfig>>;
  /**
   * Repo-relative directories deliberately left without an Application (experimental); no Application may
   * use a path inside them.
   * @default []
   */
  readonly unmanaged?: readonly string[];
  /**
   * Temporal on the shared CNPG cluster.
   * @default - no Temporal Application
   */
  readonly temporal?: TemporalConfig;
  /**
   * The `data-schemas` Application (generated when a cluster or database has `deliveredBy: 'argocd'`).
   * @default {}
   */
  readonly dataSchemas?: DataSchemasConfig;
  /**
   * The `sops-secrets` Application.
   * @default {}
   */
  readonly sopsSecrets?: SopsSecretsConfig;
  /**
   * The `forgejo-mirror` Application.
   * @default {}
   */
  readonly forgejoMirror?: ForgejoMirrorConfig;
}
