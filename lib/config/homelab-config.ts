import { ArgoCdConfig } from './argocd-config';

/**
 * The one input to synthesis. Everything a platform owner may change lives here; `lib/config/defaults.ts`
 * holds the reference homelab and `resolveConfig()` merges a partial config over it.
 */

/** Pod Security Standards level written as `pod-security.kubernetes.io/*` labels. */
export type PodSecurityLevel = 'privileged' | 'baseline' | 'restricted';

/** Properties of one namespace. */
export interface NamespaceConfig {
  /**
   * Pod Security level that the namespace enforces.
   * @default 'restricted'
   */
  readonly podSecurity?: PodSecurityLevel;
  /**
   * Level reported as warnings and audit events; useful when `podSecurity` is relaxed for third-party pods.
   * @default - the same as `podSecurity`
   */
  readonly podSecurityWarn?: PodSecurityLevel;
}

/** A CNPG `Cluster` declared in Phase 0. */
export interface PostgresClusterConfig {
  /** Namespace of the `Cluster`; must be declared in `namespaces`. */
  readonly namespace: string;
  /**
   * Number of PostgreSQL instances.
   * @default 1
   */
  readonly instances?: number;
  /**
   * Database created by `initdb` (CNPG's `bootstrap.initdb.database`).
   * @default 'app'
   */
  readonly initdbDatabase?: string;
  /**
   * Owner role created by `initdb`; its credentials are in the CNPG-generated `<cluster>-app` Secret.
   * @default - the same as `initdbDatabase`
   */
  readonly initdbOwner?: string;
  /**
   * Size of each instance's data volume.
   * @default '10Gi'
   */
  readonly storageSize?: string;
  /**
   * StorageClass of the data volumes.
   * @default - the cluster's default StorageClass
   */
  readonly storageClass?: string;
  /**
   * Tolerate control-plane taints and prefer spreading instances across nodes (preferred, not required,
   * so a partly schedulable 3-control-plane cluster cannot deadlock).
   * @default true
   */
  readonly controlPlaneFriendly?: boolean;
  /**
   * CPU each instance requests.
   * @default '100m'
   */
  readonly cpuRequest?: string;
  /**
   * Memory each instance requests.
   * @default '512Mi'
   */
  readonly memoryRequest?: string;
  /**
   * Memory limit of each instance.
   * @default '1Gi'
   */
  readonly memoryLimit?: string;
  /**
   * Login roles CNPG manages on the cluster (`spec.managed.roles`), for Database owners other than the
   * `initdb` owner. Each role's password comes from a `kubernetes.io/basic-auth` Secret named
   * `<cluster>-<role>` in the cluster's namespace, which you provide (for example through SOPS); it is
   * referenced, never generated.
   * @default []
   */
  readonly managedRoles?: readonly string[];
  /**
   * Where the `Cluster` is delivered: by the Phase-0 runbook, or by the `data-schemas` Argo CD Application.
   * @default 'bootstrap'
   */
  readonly deliveredBy?: 'bootstrap' | 'argocd';
}

/** A CNPG `Database` CR. The key of `databases` is the PostgreSQL name (`temporal_visibility`). */
export interface DatabaseConfig {
  /** Name of the CNPG cluster (a key of `postgresClusters`) that hosts the database. */
  readonly cluster: string;
  /** Role that owns the database; it must exist on the cluster (its `initdb` owner or a managed role). */
  readonly owner: string;
  /**
   * What CNPG does with the PostgreSQL database when the CR is deleted.
   * @default 'retain'
   */
  readonly reclaimPolicy?: 'retain' | 'delete';
  /**
   * Where the Database CR is delivered: in Phase 0 by the bootstrap runbook, or by the `data-schemas`
   * Argo CD Application (wave 6).
   * @default 'bootstrap'
   */
  readonly deliveredBy?: 'bootstrap' | 'argocd';
}

/** The self-hosted git host. */
export interface ForgejoConfig {
  /**
   * Namespace of Forgejo and its Redis.
   * @default 'cicd'
   */
  readonly namespace?: string;
  /** PostgreSQL name of the database Forgejo uses (a key of `databases`, or a cluster's `initdbDatabase`). */
  readonly database: string;
  /**
   * Size of the repository volume.
   * @default '20Gi'
   */
  readonly storageSize?: string;
  /**
   * StorageClass of the repository volume.
   * @default - the cluster's default StorageClass
   */
  readonly storageClass?: string;
  /**
   * Owner (user or organisation) of the mirrored homelab repository in Forgejo.
   * @default - the owner of the GitHub seed repository
   */
  readonly repoOwner?: string;
  /**
   * Secret in Forgejo's namespace with keys `username` and `password` for the database. Needed only when
   * the CNPG-generated `<cluster>-app` Secret cannot be used: the cluster lives in another namespace, or the
   * database owner is not the `initdb` owner. `bootstrap.sh` checks that it exists before applying Forgejo.
   * @default - the CNPG-generated `<cluster>-app` Secret
   */
  readonly databaseSecret?: string;
}

/** The git repository Argo CD syncs from. */
export interface GitConfig {
  /** SSH URL of the private GitHub seed, e.g. `git@github.com:acme/homelab.git`. */
  readonly githubSeedUrl: string;
  /**
   * Which git host Argo CD reads from: the GitHub seed (Phase 1) or Forgejo (after the Phase-2 cutover).
   * @default 'github'
   */
  readonly source?: 'github' | 'forgejo';
  /**
   * Branch or tag every Application tracks.
   * @default 'main'
   */
  readonly targetRevision?: string;
  /**
   * Folder of the homelab repository where this program's `dist/` is committed; every Application path is
   * computed from it.
   * @default 'k8s/generated'
   */
  readonly distPath?: string;
  /**
   * Local file holding the SSH deploy key, read by `bootstrap.sh` at apply time (never written to output).
   * @default '~/.ssh/argocd_seed'
   */
  readonly deployKeyFile?: string;
  /**
   * Local checkout of the homelab repository. When set, synthesis fails for any Application path or `$values`
   * file that does not exist there, instead of Argo CD failing at sync time ("app path does not exist").
   * @default - not checked at synth time (`npm run coverage -- --repo <path>` checks a checkout on demand)
   */
  readonly repoRoot?: string;
}

/** Everything a platform owner may change. The only input to synthesis. */
export interface HomelabConfig {
  /** Namespaces created in Phase 0, keyed by name. */
  readonly namespaces: Readonly<Record<string, NamespaceConfig>>;
  /** CNPG clusters created in Phase 0, keyed by the name of their `Cluster`. */
  readonly postgresClusters: Readonly<Record<string, PostgresClusterConfig>>;
  /** Declarative databases, keyed by PostgreSQL name. */
  readonly databases: Readonly<Record<string, DatabaseConfig>>;
  /** The git host. */
  readonly forgejo: ForgejoConfig;
  /** The git source Argo CD reconciles. */
  readonly git: GitConfig;
  /** The steady-state Argo CD tree: project, Applications and waves. */
  readonly argocd: ArgoCdConfig;
  /**
   * Names that must never become Argo CD Applications, because Argo CD cannot sync before they exist.
   * @default ['cnpg-operator', 'forgejo', 'forgejo-db', 'longhorn']
   */
  readonly phase0Components?: readonly string[];
}

