/**
 * The homelab config, declared once. Every type of the config is derived from this schema:
 *
 * - `HomelabConfig` (`z.input`) is what users write in `homelab.config.ts`: optional fields may be left out;
 * - `ResolvedHomelabConfig` (`z.output`) is what the rest of lib/ reads: every default applied, so no
 *   consumer repeats a default;
 * - `parseHomelabConfig()` (lib/config/parse.ts) validates any value against it at run time, because
 *   `npm run synth` does not type-check.
 *
 * Objects are strict: an unknown key is an error that names the nearest known key. Rules that span fields
 * (a namespace must be declared, an owner must exist on its cluster...) are the rule table of
 * lib/config/rules.ts, run by the same parse.
 */
import { z } from 'zod';
import { pgIdentifierProblem, RESERVED_DATABASE_NAMES, SOPS_PLUGIN_NAME } from '../shared/names';
import { CLUSTER_SCOPED_KINDS, ClusterScopedKind } from '../shared/cluster-resources';
import { manifestSha256Problem, manifestUrlProblem, REFERENCE_MANIFEST_SHA256 } from '../shared/manifest-integrity';
import {
  checkedString, gitRef, goDuration, integer, keyedRecord, namespaceName, namespaceNameProblem, noCredentials, objectName, objectNameProblem,
  pgIdentifier, pgRoleName, quantity, repoRelativePath, secretKey, secretName, subdomainName, syncWave,
} from './fields';
import { show } from './messages';
import { SYNC_WAVES } from '../shared/sync-waves';
import { TEMPORAL_SQL_PLUGINS, TEMPORAL_VALUES_CHART_VERSION } from '../shared/temporal-chart';
import { CNPG_RESOURCE_DEFAULTS } from '../shared/cnpg-defaults';
import {
  barmanBackupIdProblem, cnpgScheduleProblem, cronJobScheduleProblem, recoveryTargetTimeProblem, retentionPolicyProblem,
} from '../shared/backup';
import { forgejoDumpNameProblem } from '../shared/forgejo-backup';
import { ipv4CidrProblem } from '../shared/network';
import { DeliverySchema } from './delivery/schema';
import { BackupObjectStoreSchema } from './object-store';

// The object store's schemas live in their own file so that lib/config/delivery/ can use them without an import cycle.
export { BackupObjectStoreSchema, S3CredentialsSchema, SecretKeyRefSchema } from './object-store';

// ---------------------------------------------------------------------------------------------------------
// Phase 0: namespaces, CNPG clusters and databases, Forgejo, git.

/** Pod Security Standards levels, written as `pod-security.kubernetes.io/*` labels. */
export const POD_SECURITY_LEVELS = ['privileged', 'baseline', 'restricted'] as const;
const podSecurityLevel = z.enum(POD_SECURITY_LEVELS, {
  error: (issue) => `${show(issue.input)} is not a Pod Security level; use one of ${POD_SECURITY_LEVELS.join(', ')}.`,
});

/** Where a CNPG object is delivered: by the Phase-0 runbook or by the `data-schemas` Argo CD Application. */
const deliveredBy = z.enum(['bootstrap', 'argocd']);

/** Requests and limit of each PostgreSQL instance when the config sets none. */

/** Properties of one namespace. */
export const NamespaceSchema = z.strictObject({
  /** Pod Security level that the namespace enforces. @default 'restricted' */
  podSecurity: podSecurityLevel.default('restricted'),
  /** Level reported as warnings and audit events. @default - the same as `podSecurity` */
  podSecurityWarn: podSecurityLevel.optional(),
}).readonly();

/** The folder of one cluster's archive in an object store (the plugin's `serverName` parameter). */
const serverName = objectName('server name');

/**
 * The scheduled restore drill of a cluster's backups: a CronJob recovers the latest backup into a throwaway cluster
 * in the `restore-drill` namespace, checks that it answers, and removes it. On by default: a backup that was never
 * restored is not known to be one.
 */
export const RestoreDrillSchema = z.strictObject({
  /** Run the drill. @default true */
  enabled: z.boolean().default(true),
  /** When: a Kubernetes CronJob schedule, five fields. @default '0 5 * * 0' (05:00 every Sunday) */
  schedule: checkedString(cronJobScheduleProblem).default('0 5 * * 0'),
  /** Minutes the recovery may take before the drill fails. @default 60 */
  timeoutMinutes: integer(5).default(60),
}).readonly();

/**
 * Backups of a cluster through the CNPG Barman Cloud plugin: WAL archiving and scheduled base backups to an object
 * store, with a retention policy. Not deployable until the plugin is installed (see the README, "Backups").
 */
export const PostgresBackupSchema = z.strictObject({
  /** Where WAL and base backups are written. */
  objectStore: BackupObjectStoreSchema,
  /** Archive WAL continuously (point-in-time recovery); `false` keeps only the base backups. @default true */
  walArchiving: z.boolean().default(true),
  /** When a base backup is taken: robfig/cron with seconds, six fields. @default '0 0 3 * * *' (03:00 every day) */
  schedule: checkedString(cnpgScheduleProblem).default('0 0 3 * * *'),
  /** How long backups and WAL are kept: `<n>d`, `<n>w` or `<n>m`. @default '30d' */
  retentionPolicy: checkedString(retentionPolicyProblem).default('30d'),
  /**
   * Server name the cluster archives under now. After a restore it must be a new one: the plugin refuses to archive
   * into a WAL archive that is not empty. @default - the cluster name
   */
  serverName: serverName.optional(),
  /**
   * Keep a backup target that is inside the cluster it protects (a `.svc` name, a single-label name, a cluster
   * address range): such a backup is lost with the cluster, so synthesis refuses it unless this says it is meant.
   * @default false
   */
  acceptInClusterOnly: z.boolean().default(false),
  /** The scheduled restore drill. @default {} (on, 05:00 every Sunday) */
  restoreDrill: RestoreDrillSchema.prefault({}),
}).readonly();

/** The backup a cluster is bootstrapped from, instead of `initdb`. */
export const RestoreFromSchema = z.strictObject({
  /** Server name whose backups and WAL are read: the one the lost cluster archived under. */
  serverName,
  /** The object store holding it. @default - `backup.objectStore` */
  objectStore: BackupObjectStoreSchema.optional(),
  /** Point in time to recover to, RFC 3339 with its zone. @default - the end of the archived WAL */
  targetTime: checkedString(recoveryTargetTimeProblem).optional(),
  /** Base backup to start from, e.g. `20260115T030000`. @default - the latest one before `targetTime` */
  backupID: checkedString(barmanBackupIdProblem).optional(),
  /** The application database in the backup (its credentials go into `<cluster>-app`). @default 'app' */
  database: pgIdentifier.optional(),
  /** Owner of `database`. @default - `database` */
  owner: pgRoleName.optional(),
}).readonly();

/** A CNPG `Cluster`, keyed by the name of the `Cluster` in `postgresClusters`. */
export const PostgresClusterSchema = z.strictObject({
  /** Namespace of the `Cluster`; must be declared in `namespaces`. */
  namespace: namespaceName,
  /** Number of PostgreSQL instances. @default 1 */
  instances: integer(1).default(1),
  /**
   * Database created by `initdb` (CNPG's `bootstrap.initdb.database`); not with `restoreFrom`.
   * @default 'app' (with `restoreFrom`: `restoreFrom.database`)
   */
  initdbDatabase: pgIdentifier.superRefine((v, ctx) => {
    if (RESERVED_DATABASE_NAMES.includes(v)) ctx.addIssue({ code: 'custom', message: `${show(v)} is reserved by PostgreSQL; choose another name.` });
  }).optional(),
  /**
   * Owner role created by `initdb`; its credentials are in the `<cluster>-app` Secret; not with `restoreFrom`.
   * @default - `initdbDatabase` (with `restoreFrom`: `restoreFrom.owner`)
   */
  initdbOwner: pgRoleName.optional(),
  /** Size of each instance's data volume. @default '10Gi' */
  storageSize: quantity({ example: '10Gi', bytes: true }).default('10Gi'),
  /** StorageClass of the data volumes. @default - the cluster's default StorageClass */
  storageClass: subdomainName('StorageClass name').optional(),
  /** Tolerate control-plane taints and prefer spreading instances across nodes. @default true */
  controlPlaneFriendly: z.boolean().default(true),
  /** CPU each instance requests. @default '100m' */
  cpuRequest: quantity({ example: CNPG_RESOURCE_DEFAULTS.cpuRequest }).default(CNPG_RESOURCE_DEFAULTS.cpuRequest),
  /** Memory each instance requests. @default '512Mi' */
  memoryRequest: quantity({ example: CNPG_RESOURCE_DEFAULTS.memoryRequest, bytes: true }).default(CNPG_RESOURCE_DEFAULTS.memoryRequest),
  /** Memory limit of each instance. @default '1Gi' */
  memoryLimit: quantity({ example: CNPG_RESOURCE_DEFAULTS.memoryLimit, bytes: true }).default(CNPG_RESOURCE_DEFAULTS.memoryLimit),
  /**
   * Login roles CNPG manages on the cluster (`spec.managed.roles`); each role's password comes from a
   * `kubernetes.io/basic-auth` Secret `<cluster>-<role>` that you provide. @default []
   */
  managedRoles: z.array(pgRoleName).readonly().default([]),
  /** Where the `Cluster` is delivered. @default 'bootstrap' */
  deliveredBy: deliveredBy.default('bootstrap'),
  /** WAL archiving and scheduled base backups through the Barman Cloud plugin. @default - no backups */
  backup: PostgresBackupSchema.optional(),
  /** Bootstrap the cluster from a backup instead of `initdb`. @default - a new, empty cluster */
  restoreFrom: RestoreFromSchema.optional(),
}).superRefine((c, ctx) => {
  // Whether initdb was asked for is only visible before the defaults of lib/config/resolved.ts apply.
  const initdb = (['initdbDatabase', 'initdbOwner'] as const).filter((k) => c[k] !== undefined);
  if (c.restoreFrom === undefined || initdb.length === 0) return;
  const fields = initdb.join(' and ');
  ctx.addIssue({ code: 'custom', path: [initdb[0]], message: `the cluster sets both ${fields} (initdb: a new, empty cluster) and restoreFrom ` +
    `(recovery from a backup), and a cluster is bootstrapped only one way. To restore, remove ${fields} (restoreFrom.database and ` +
    'restoreFrom.owner name the recovered database); to start empty, remove restoreFrom.' });
}).readonly();

/** A CNPG `Database` CR. The key of `databases` is the PostgreSQL name (`temporal_visibility`). */
export const DatabaseSchema = z.strictObject({
  /** Name of the CNPG cluster (a key of `postgresClusters`) that hosts the database. */
  cluster: z.string(),
  /** Role that owns the database; it must exist on the cluster (its `initdb` owner or a managed role). */
  owner: z.string(),
  /** What CNPG does with the PostgreSQL database when the CR is deleted. @default 'retain' */
  reclaimPolicy: z.enum(['retain', 'delete']).default('retain'),
  /** Where the Database CR is delivered. @default 'bootstrap' */
  deliveredBy: deliveredBy.default('bootstrap'),
  /**
   * Argo CD Applications whose pods connect to the database: when its cluster's namespace is default-deny (a Phase-0
   * cluster's), any pod of each Application's namespace may reach the cluster on PostgreSQL's port. Forgejo and Temporal
   * need no entry: their constructs reference their databases. @default []
   */
  usedBy: z.array(z.string()).readonly().default([]),
}).readonly();

const ipAddress = checkedString((v) => {
  const v4 = /^\d{1,3}(\.\d{1,3}){3}$/.test(v) && v.split('.').every((o) => Number(o) <= 255 && String(Number(o)) === o);
  const v6 = v.includes(':') && /^[0-9a-fA-F:.]+$/.test(v) && URL.canParse(`http://[${v}]/`);
  return v4 || v6 ? undefined : `${show(v)} is not an IPv4 or IPv6 address; write it like '192.168.1.165'.`;
});
const dnsHost = checkedString((v) => (v.length <= 253 && /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/.test(v) ? undefined
  : `${show(v)} is not a host name; write it like 'git.home.arpa' (lower case, no scheme, port or path).`));

/**
 * How Forgejo is reachable from the LAN. The decision record reaches Forgejo on a LAN address
 * (`http://192.168.1.165:3000`), so the default is a LoadBalancer Service; its address is left to the load
 * balancer (k3s ServiceLB answers on the node's own IP), because the record does not say that address is a
 * load-balancer IP rather than the node's. Set `address` to pin one (MetalLB pool), which also sets ROOT_URL.
 */
export const ForgejoExposeSchema = z.discriminatedUnion('type', [
  z.strictObject({
    type: z.literal('LoadBalancer'),
    /** IP the load balancer should assign (`spec.loadBalancerIP`); ROOT_URL becomes `http://<address>:3000/`. @default - picked by the load balancer */
    address: ipAddress.optional(),
  }).readonly(),
  z.strictObject({
    type: z.literal('Ingress'),
    /** Host the Ingress routes to Forgejo's HTTP Service; ROOT_URL becomes `http://<host>/`. */
    host: dnsHost,
    /** IngressClass of the Ingress. @default - the cluster's default IngressClass */
    className: subdomainName('IngressClass name').optional(),
  }).readonly(),
  z.strictObject({ type: z.literal('ClusterIP') }).readonly(),
]);

/** The Forgejo administrator the bootstrap provisions. */
export const ForgejoAdminSchema = z.strictObject({
  /** User name of the administrator; Forgejo reserves `admin`. @default 'forgejo-admin' */
  username: checkedString((v) => {
    if (!/^[A-Za-z0-9_][A-Za-z0-9_.-]{0,39}$/.test(v) || v.endsWith('.')) {
      return `${show(v)} is not a valid Forgejo user name; use letters, digits, '-', '_' and '.', e.g. 'forgejo-admin'.`;
    }
    return v.toLowerCase() === 'admin' ? `${show(v)} is reserved by Forgejo; use another name, e.g. 'forgejo-admin'.` : undefined;
  }).default('forgejo-admin'),
  /** E-mail address of the administrator (Forgejo requires one). @default 'forgejo-admin@localhost' */
  email: checkedString((v) => (/^[^\s@]+@[^\s@]+$/.test(v) ? undefined : `${show(v)} is not an e-mail address; write it like 'admin@home.arpa'.`))
    .default('forgejo-admin@localhost'),
  /** Secret (in Forgejo's namespace, key `password`) the runbook generates once for the administrator. @default 'forgejo-admin' */
  passwordSecret: secretName.default('forgejo-admin'),
}).readonly();

/** The folder of Forgejo's dumps under an object store's `path`. */
const dumpFolder = checkedString((v) => (/^[A-Za-z0-9._-]+(\/[A-Za-z0-9._-]+)*$/.test(v) && !v.split('/').includes('..') ? undefined
    : `${show(v)} is not a folder in a bucket: write it without a leading or trailing '/', e.g. 'forgejo'.`));

/**
 * Scheduled backups of Forgejo's data (repositories, LFS, attachments, the package registry) with `forgejo dump`, to
 * an S3-compatible object store. The database is not restored from them: CNPG backs it up (`postgresClusters`).
 */
export const ForgejoBackupSchema = z.strictObject({
  /** Where the dumps are written: any S3-compatible endpoint, credentials by Secret reference (in Forgejo's namespace). */
  objectStore: BackupObjectStoreSchema,
  /** Folder of the dumps under `objectStore.path`. @default 'forgejo' */
  pathPrefix: dumpFolder.default('forgejo'),
  /**
   * When a dump is taken: a Kubernetes CronJob schedule, five fields, minutes first (not CNPG's six-field one).
   * @default '0 2 * * *' (02:00 every day, an hour before the CNPG default)
   */
  schedule: checkedString(cronJobScheduleProblem).default('0 2 * * *'),
  /** Dumps older than this many days are deleted after each successful dump. @default 30 */
  retentionDays: integer(1).default(30),
  /**
   * Keep a backup target inside the cluster it protects (see `postgresClusters.<name>.backup.acceptInClusterOnly`).
   * @default false
   */
  acceptInClusterOnly: z.boolean().default(false),
}).readonly();

/**
 * The dump Forgejo's data volume is filled from, before Forgejo first starts on it. Only an empty volume (no
 * repositories, LFS objects, attachments or packages) is restored; one with data is left as it is.
 */
export const ForgejoRestoreFromSchema = z.strictObject({
  /** The object store holding the dump; must be off-site (Forgejo is restored in Phase 0). @default - `backup.objectStore` */
  objectStore: BackupObjectStoreSchema.optional(),
  /** Folder of the dumps under `objectStore.path`. @default - `backup.pathPrefix`, else 'forgejo' */
  pathPrefix: dumpFolder.optional(),
  /** `latest` (the newest dump in the folder) or a dump's file name. @default 'latest' */
  dump: checkedString(forgejoDumpNameProblem).default('latest'),
  /**
   * Local file holding the lost Forgejo's `SECRET_KEY` (the Secret `forgejo-secret-key`, key `secret-key`, saved off the
   * cluster; or `SECRET_KEY` of `app.ini` in the dump). The restored database's 2FA secrets are encrypted with it, so the
   * runbook installs it instead of generating a new key, and refuses to start without it.
   * @default '~/.config/homelab/forgejo-secret-key'
   */
  secretKeyFile: z.string().min(1).default('~/.config/homelab/forgejo-secret-key'),
}).readonly();

/** The self-hosted git host. */
export const ForgejoSchema = z.strictObject({
  /** Namespace of Forgejo and its Redis. @default 'cicd' */
  namespace: namespaceName.default('cicd'),
  /** PostgreSQL name of the database Forgejo uses (a key of `databases`, or a cluster's `initdbDatabase`). */
  database: pgIdentifier,
  /** Size of the repository volume. @default '20Gi' */
  storageSize: quantity({ example: '20Gi', bytes: true }).default('20Gi'),
  /** StorageClass of the repository volume. @default - the cluster's default StorageClass */
  storageClass: subdomainName('StorageClass name').optional(),
  /** Owner (user or organisation) of the mirrored repository in Forgejo; a URL path segment. @default - the GitHub owner */
  repoOwner: checkedString((v) => (/^[A-Za-z0-9_][A-Za-z0-9_.-]{0,39}$/.test(v) && !v.endsWith('.') ? undefined
    : `${show(v)} is not a valid Forgejo user or organisation name; use letters, digits, '-', '_' and '.', e.g. 'homelab-owner'.`)).optional(),
  /** Secret in Forgejo's namespace with keys `username` and `password` for the database. @default - `<cluster>-app` */
  databaseSecret: secretName.optional(),
  /** How Forgejo is reachable from the LAN. @default { type: 'LoadBalancer' } */
  expose: ForgejoExposeSchema.default({ type: 'LoadBalancer' }),
  /** The administrator, its password Secret, and the owner of the mirror. @default {} */
  admin: ForgejoAdminSchema.prefault({}),
  /** Scheduled `forgejo dump`s of the repository data to an object store. @default - no backups */
  backup: ForgejoBackupSchema.optional(),
  /** Fill an empty data volume from a dump before Forgejo starts. @default - Forgejo starts empty */
  restoreFrom: ForgejoRestoreFromSchema.optional(),
}).readonly();

/** SSH URL of the GitHub seed: `git@github.com:owner/repo.git` or `ssh://git@github.com/owner/repo.git`. */
export const GITHUB_SSH_URL = /^(git@github\.com:|ssh:\/\/git@github\.com\/)([A-Za-z0-9_.-]+)\/([A-Za-z0-9_.-]+?)(\.git)?$/;

/** The git repository Argo CD syncs from. */
export const GitSchema = z.strictObject({
  /** SSH URL of the private GitHub seed, e.g. `git@github.com:acme/homelab.git`. */
  githubSeedUrl: checkedString((v) => (GITHUB_SSH_URL.test(v) ? undefined : `${show(v)} is not a GitHub SSH URL; ` +
    'write it like \'git@github.com:owner/homelab.git\' (the deploy key is an SSH key).')),
  /** Which git host Argo CD reads from: the GitHub seed or Forgejo (after the cutover). @default 'github' */
  source: z.enum(['github', 'forgejo'], {
    error: (issue) => `${show(issue.input)} is not a git source; use 'github' or 'forgejo'.`,
  }).default('github'),
  /** Branch or tag every Application tracks. @default 'main' */
  targetRevision: gitRef.default('main'),
  /** Folder of the homelab repository where `dist/` is committed. @default 'k8s/generated' */
  distPath: repoRelativePath.default('k8s/generated'),
  /** Local file holding the SSH deploy key, read by `bootstrap.sh` at apply time. @default '~/.ssh/argocd_seed' */
  deployKeyFile: z.string().min(1).default('~/.ssh/argocd_seed'),
  /** Local checkout of the homelab repository; when set, synth checks every Application path exists there. */
  repoRoot: z.string().min(1).optional(),
}).readonly();

/** A UUID as Kubernetes writes `metadata.uid`: lower-case hex, 8-4-4-4-12. */
const KUBERNETES_UID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/**
 * The cluster `bootstrap.sh` may change. The runbook always shows the current kube context, its API server and
 * the UID of its `kube-system` namespace and asks before the first change (`--yes` answers for you); each field
 * set here must also match, or it refuses. Pin at least `kubeSystemUid` once the cluster exists: a rebuilt
 * cluster keeps its context name and address but gets a new UID.
 */
export const ClusterSchema = z.strictObject({
  /** Name of the kube context (`kubectl config current-context`). @default - any context */
  context: checkedString((v) => (v !== '' && !/[\s\x00-\x1f\x7f]/.test(v) ? undefined
    : `${show(v)} is not a kube context name: it must be non-empty, without spaces, e.g. 'admin@homelab'.`)).optional(),
  /**
   * API server URL as the kubeconfig names it
   * (`kubectl config view --minify -o jsonpath='{.clusters[0].cluster.server}'`), e.g. `https://10.0.0.10:6443`.
   * @default - any API server
   */
  // (credentials in it are refused, unshown, for every string of the config: lib/config/parse.ts)
  apiServer: checkedString((v) => (/^https:\/\/[^\s/?#@]+(\/[^\s?#]*)?$/.test(v) ? undefined
    : `${show(v)} is not an API server URL; write it as the kubeconfig does, e.g. 'https://10.0.0.10:6443'.`)).optional(),
  /**
   * UID of the `kube-system` namespace (`kubectl get namespace kube-system -o jsonpath='{.metadata.uid}'`).
   * @default - any cluster
   */
  kubeSystemUid: checkedString((v) => (KUBERNETES_UID.test(v) ? undefined : `${show(v)} is not a Kubernetes UID; copy it from `
    + '`kubectl get namespace kube-system -o jsonpath=\'{.metadata.uid}\'`, e.g. \'0f1e2d3c-4b5a-4697-8877-665544332211\'.')).optional(),
}).readonly();

// ---------------------------------------------------------------------------------------------------------
// The CNI and the storage: Helm releases the bootstrap runbook installs first (lib/constructs/{cilium,longhorn}).

/** An Argo CD Application name, or `null`: the Application that adopts a Phase-0 Helm release. */
const adoptingApplication = objectName('Application name', 253).nullable();

/**
 * Cilium, the CNI, installed by the runbook with `helm upgrade --install` (chart `PHASE0_CHARTS.cilium`) before
 * anything that needs a pod network, with the Talos settings (see lib/constructs/cilium/cilium-install.ts).
 */
export const CiliumSchema = z.strictObject({
  /** Host the agent reaches the API server at (`k8sServiceHost`). @default 'localhost' (Talos KubePrism) */
  k8sServiceHost: z.string().min(1).default('localhost'),
  /** Port of `k8sServiceHost` (`k8sServicePort`). @default 7445 (Talos KubePrism) */
  k8sServicePort: integer(1).max(65535).default(7445),
  /** Cilium replaces kube-proxy; Talos then runs with `cluster.proxy.disabled: true`. @default true */
  kubeProxyReplacement: z.boolean().default(true),
  /**
   * The Argo CD Application that adopts the release after Phase 0: it must render the very same release (chart,
   * repository, version, release name, namespace) from the very same generated values file, which synthesis
   * fills in; `null`: no Application manages Cilium. @default 'cilium'
   */
  adoptedBy: adoptingApplication.default('cilium'),
}).readonly();

/**
 * Longhorn, the storage, installed by the runbook with `helm upgrade --install` (chart `PHASE0_CHARTS.longhorn`)
 * after Cilium and before anything with a volume; its namespace is created in Phase 0 with the `privileged` level.
 */
export const LonghornSchema = z.strictObject({
  /** Namespace of the release. @default 'longhorn-system' */
  namespace: namespaceName.default('longhorn-system'),
  /** Where replicas live on each node (`defaultSettings.defaultDataPath`). @default '/var/lib/longhorn' */
  defaultDataPath: checkedString((v) => (v.startsWith('/') ? undefined : `${show(v)} is not an absolute path, e.g. '/var/lib/longhorn'.`))
    .default('/var/lib/longhorn'),
  /** Replicas per volume (`defaultReplicaCount`, `persistence.defaultClassReplicaCount`). @default 3 (one per node) */
  replicaCount: integer(1).default(3),
  /** Longhorn's StorageClass is the cluster default (`persistence.defaultClass`). @default true */
  defaultClass: z.boolean().default(true),
  /**
   * The Argo CD Application that adopts the release, as for `cilium.adoptedBy`. ADR 0001 keeps Longhorn
   * bootstrap-owned ("Argo CD never manages them"), so none does: the `longhorn-config` Application manages
   * Longhorn's configuration only. @default null
   */
  adoptedBy: adoptingApplication.default(null),
}).readonly();

/** An IPv4 CIDR in canonical form, such as `192.168.1.0/24`. */
const ipv4Cidr = checkedString(ipv4CidrProblem);

/**
 * Network isolation (lib/constructs/network): a default-deny NetworkPolicy in every namespace that holds a Phase-0
 * workload, and allows derived from the constructs' references. Pods reach the API server and hosts outside the
 * cluster by address, so those addresses come from here.
 */
export const NetworkSchema = z.strictObject({
  /**
   * Default-deny (ingress and egress) in the namespaces of Argo CD, Forgejo and Redis, the CNPG operator and the Phase-0
   * Postgres clusters, with only the derived flows allowed. `false` writes no NetworkPolicy. @default true
   */
  isolatePhase0: z.boolean().default(true),
  /**
   * Where pods reach the Kubernetes API server, as CIDRs: the endpoints of the `kubernetes` Service (the control-plane
   * nodes' addresses), not its ClusterIP, because a policy sees the backend a Service translates to. The API server
   * also calls CNPG's admission webhook from them. Read them with
   * `kubectl get endpointslices -n default -l kubernetes.io/service-name=kubernetes`.
   * @default ['192.168.1.0/24'] (the reference homelab's LAN: narrow it to your control-plane nodes' /32s)
   */
  kubernetesApiCidrs: z.array(ipv4Cidr).min(1).readonly().default(['192.168.1.0/24']),
  /** The API server's port on those addresses. @default 6443 */
  kubernetesApiPort: integer(1).max(65535).default(6443),
  /** The cluster's pod CIDR (Talos `cluster.network.podSubnets`). @default '10.244.0.0/16' */
  podCidr: ipv4Cidr.default('10.244.0.0/16'),
  /** The cluster's Service CIDR (Talos `cluster.network.serviceSubnets`). @default '10.96.0.0/12' */
  serviceCidr: ipv4Cidr.default('10.96.0.0/12'),
}).readonly();

// ---------------------------------------------------------------------------------------------------------
// The steady-state Argo CD tree.

/** Plain manifests or a kustomization at a path of the homelab repository. */
export const GitPathSourceSchema = z.strictObject({
  kind: z.literal('git-path'),
  /** Repo-relative directory, e.g. `k8s/infra/longhorn`. */
  path: z.string(),
  /** Read subdirectories too (plain-manifest directories only). @default false */
  recurse: z.boolean().optional(),
  /** Glob of the files to read (`directory.include`). @default - every manifest file */
  include: z.string().optional(),
  /** Glob of the files to skip (`directory.exclude`), e.g. `*-values.yaml`. @default - none */
  exclude: z.string().optional(),
}).readonly();

/** A remote Helm chart at a pinned version, its values files in the homelab repository (`$values/<path>`). */
export const HelmChartSourceSchema = z.strictObject({
  kind: z.literal('helm-chart'),
  /** The chart repository: `https://…` (a Helm repo index) or `oci://registry/path`; never with credentials. */
  repoURL: noCredentials,
  /** Chart name. */
  chart: z.string(),
  /** Exact chart version, e.g. `1.6.0`. Ranges, `*`, `latest` and empty versions are rejected. */
  version: z.string(),
  /** Repo-relative paths of values files in the homelab repository, applied in order. @default [] */
  valueFiles: z.array(z.string()).readonly().optional(),
  /** Helm release name. @default - the Application name */
  releaseName: objectName('Helm release name', 53).optional(),
  /** Skip the chart's CRDs (another Application installs them). @default false */
  skipCrds: z.boolean().optional(),
}).readonly();

/** A directory rendered by a Config Management Plugin, e.g. the `sops` plugin that decrypts `*.enc.yaml`. */
export const PluginSourceSchema = z.strictObject({
  kind: z.literal('plugin'),
  /** Repo-relative directory the plugin runs in (`.` is the repository root). */
  path: z.string(),
  /** Name of the plugin, as configured in the repo-server's sidecar. */
  pluginName: z.string().min(1),
}).readonly();

/** One source of an Application. */
export const ApplicationSourceSchema = z.discriminatedUnion('kind', [GitPathSourceSchema, HelmChartSourceSchema, PluginSourceSchema]);

/** Application-level sync options, each rendered as `<Option>=true` (see lib/constructs/argocd/sync-policy.ts). */
export const SYNC_OPTIONS = [
  'CreateNamespace', 'FailOnSharedResource', 'PruneLast', 'RespectIgnoreDifferences', 'ServerSideApply', 'SkipDryRunOnMissingResource',
] as const;

/** Labels and annotations Argo CD sets on the namespace it creates (`syncPolicy.managedNamespaceMetadata`). */
export const ManagedNamespaceMetadataSchema = z.strictObject({
  labels: z.record(z.string(), z.string()).optional(),
  annotations: z.record(z.string(), z.string()).optional(),
}).readonly();

/** A resource field Argo CD ignores when it compares live and desired state (`spec.ignoreDifferences[]`). */
export const IgnoreDifferenceSchema = z.strictObject({
  group: z.string().optional(),
  kind: z.string().min(1),
  name: z.string().optional(),
  namespace: z.string().optional(),
  jsonPointers: z.array(z.string()).readonly().optional(),
  jqPathExpressions: z.array(z.string()).readonly().optional(),
  managedFieldsManagers: z.array(z.string()).readonly().optional(),
}).readonly();

const clusterScopedKind = z.enum(Object.keys(CLUSTER_SCOPED_KINDS) as [ClusterScopedKind, ...ClusterScopedKind[]]);

/** Where an Application's pods may connect to when their namespace is default-deny (`network.egressTo`). */
export const APPLICATION_EGRESS_TARGETS = ['kubernetes-api', 'forgejo', 'outside-cluster'] as const;

/**
 * The network access of an Application's pods in a default-deny namespace: a Phase-0 namespace (Forgejo's, Argo CD's,
 * the CNPG operator's, a Phase-0 cluster's), or the Application's own with `isolate`.
 */
export const ApplicationNetworkSchema = z.strictObject({
  /**
   * Opt in: a default-deny NetworkPolicy in the Application's namespace (written by Phase 0). Its pods may then talk to
   * each other (any port), resolve names, and open the connections of `egressTo`; nothing outside the namespace may
   * connect to them. @default false
   */
  isolate: z.boolean().default(false),
  /**
   * The labels of the Application's pods (`matchLabels`). Required in a Phase-0 namespace: every pod there would include
   * Forgejo or Argo CD. @default - every pod of the namespace
   */
  podSelector: z.record(z.string().min(1), z.string()).readonly().optional(),
  /**
   * What the pods connect to: `kubernetes-api` (the API server at `network.kubernetesApiCidrs`), `forgejo` (its HTTP
   * API and git over HTTP), `outside-cluster` (HTTPS, port 443, any address outside the cluster). @default []
   */
  egressTo: z.array(z.enum(APPLICATION_EGRESS_TARGETS)).readonly().default([]),
}).readonly();

/** One Argo CD Application of the steady state, keyed by its name in `argocd.applications`. */
export const ApplicationSchema = z.strictObject({
  /** Wave of the root app-of-apps, 0 to 8 (see `SYNC_WAVES`). */
  syncWave,
  /** Destination namespace. */
  namespace: z.string(),
  /** Git paths of the homelab repo, pinned remote Helm charts, plugin directories. */
  sources: z.array(ApplicationSourceSchema).readonly(),
  /** Applications that must be healthy first; each must sit in a strictly earlier wave. @default [] */
  dependsOn: z.array(z.string()).readonly().default([]),
  /** Application-level sync options. @default [] */
  syncOptions: z.array(z.enum(SYNC_OPTIONS)).readonly().default([]),
  /** Metadata of the namespace Argo CD creates; requires `CreateNamespace`. @default - none */
  managedNamespaceMetadata: ManagedNamespaceMetadataSchema.optional(),
  /** Fields ignored when comparing live and desired state. @default [] */
  ignoreDifferences: z.array(IgnoreDifferenceSchema).readonly().default([]),
  /** Cluster-scoped kinds the Application manages. @default [] */
  clusterResources: z.array(clusterScopedKind).readonly().default([]),
  /** Namespaces besides `namespace` that the manifests write to. @default [] */
  additionalNamespaces: z.array(z.string()).readonly().default([]),
  /** The manifests write into other Applications' namespaces. @default false */
  spansProjectNamespaces: z.boolean().default(false),
  /** Sync automatically with prune and selfHeal. @default true */
  automatedSync: z.boolean().default(true),
  /**
   * Network access of the Application's pods when its namespace is default-deny (see `ApplicationNetworkSchema`).
   * @default - none: a namespace of its own keeps its charts' policies; pods it runs in a Phase-0 namespace get no allow
   */
  network: ApplicationNetworkSchema.optional(),
}).readonly();

/** Temporal, on PostgreSQL only (both stores). */
export const TemporalSchema = z.strictObject({
  /** CNPG cluster (a key of `postgresClusters`) that hosts both databases. */
  cluster: z.string(),
  /** PostgreSQL name of the main store's database (a key of `databases`). @default 'temporal' */
  defaultDatabase: pgIdentifier.default('temporal'),
  /** PostgreSQL name of the visibility store's database (a key of `databases`). @default 'temporal_visibility' */
  visibilityDatabase: pgIdentifier.default('temporal_visibility'),
  /** Chart version; must equal the version the generated values are written for. @default '1.6.0' */
  chartVersion: z.string().default(TEMPORAL_VALUES_CHART_VERSION),
  /** Wave of the Temporal Application. @default 8 */
  syncWave: syncWave.default(SYNC_WAVES.APPS),
  /** Namespace of Temporal. @default 'temporal' */
  namespace: namespaceName.default('temporal'),
  /** SQL plugin and driver of both stores. @default 'postgres12_pgx' */
  sqlPlugin: z.enum(TEMPORAL_SQL_PLUGINS, {
    error: (issue) => `${show(issue.input)} is not allowed: Temporal runs on PostgreSQL only. Use one of ${TEMPORAL_SQL_PLUGINS.map((p) => `'${p}'`).join(', ')}.`,
  }).default('postgres12_pgx'),
  /** History shards; can never change after the first install. @default 512 */
  numHistoryShards: integer(1).default(512),
  /** Secret in Temporal's namespace with the role's password (key `password`). @default - `<cluster>-<owner>` */
  passwordSecretName: secretName.optional(),
  /** Values deep-merged over the generated ones; synth refuses any that leave PostgreSQL. @default - none */
  valuesOverride: z.record(z.string(), z.unknown()).readonly().optional(),
}).readonly();

/** The Application that carries the CNPG Databases (and Clusters) delivered by Argo CD. */
export const DataSchemasSchema = z.strictObject({
  /** Wave of the `data-schemas` Application. @default 6 */
  syncWave: syncWave.default(SYNC_WAVES.DATA),
}).readonly();

/** The Application that applies every `*.enc.yaml` of the repository through the SOPS plugin. */
export const SopsSecretsSchema = z.strictObject({
  /** Wave of the `sops-secrets` Application. @default 0 */
  syncWave: syncWave.default(SYNC_WAVES.SUBSTRATE),
  /** Config Management Plugin that decrypts (provided by the Phase-0 Argo CD install). @default 'sops' */
  pluginName: z.string().min(1).default(SOPS_PLUGIN_NAME),
  /** Destination namespace, used only by a Secret that names no namespace. @default 'argocd' */
  namespace: namespaceName.default('argocd'),
  /**
   * Local age identity file (`age-keygen -o`) the SOPS plugin decrypts with; `bootstrap.sh` installs it as the
   * Secret the repo-server mounts before Argo CD syncs anything (`SOPS_AGE_KEY_FILE` overrides it). Never in git.
   * @default '~/.config/sops/age/keys.txt' (where sops itself looks on Linux)
   */
  ageKeyFile: z.string().min(1).default('~/.config/sops/age/keys.txt'),
}).readonly();

/** The Job that creates Forgejo's pull-mirror of the GitHub seed. */
export const ForgejoMirrorSchema = z.strictObject({
  /** Wave of the `forgejo-mirror` Application. @default 3 */
  syncWave: syncWave.default(SYNC_WAVES.IDENTITY_AND_CICD),
  /** Secret (in Forgejo's namespace) with the GitHub fine-grained token. @default 'forgejo-github-mirror-token' */
  githubTokenSecret: secretName.default('forgejo-github-mirror-token'),
  /** Key of the token in `githubTokenSecret`. @default 'token' */
  githubTokenKey: secretKey.default('token'),
  /**
   * Secret (in Forgejo's namespace) with the Forgejo token the mirror Job uses; the bootstrap's `forgejo-provision`
   * Job issues the token and stores it there. @default 'forgejo-admin-token'
   */
  forgejoTokenSecret: secretName.default('forgejo-admin-token'),
  /** Key of the token in `forgejoTokenSecret`. @default 'token' */
  forgejoTokenKey: secretKey.default('token'),
  /** How often Forgejo pulls from GitHub (a Go duration). @default '10m0s' */
  mirrorInterval: goDuration.default('10m0s'),
}).readonly();

/** The steady-state Argo CD tree. */
export const ArgoCdSchema = z.strictObject({
  /** Name of the one AppProject; `default` is rejected. @default 'homelab' */
  project: z.string().default('homelab'),
  /** One Application per deployable directory, keyed by Application name. */
  applications: z.record(z.string(), ApplicationSchema).readonly(),
  /** Repo-relative directories deliberately left without an Application. @default [] */
  unmanaged: z.array(z.string()).readonly().default([]),
  /** Temporal on the shared CNPG cluster. @default - no Temporal Application */
  temporal: TemporalSchema.optional(),
  /** The `data-schemas` Application. @default {} */
  dataSchemas: DataSchemasSchema.prefault({}),
  /** The `sops-secrets` Application. @default {} */
  sopsSecrets: SopsSecretsSchema.prefault({}),
  /** The `forgejo-mirror` Application. @default {} */
  forgejoMirror: ForgejoMirrorSchema.prefault({}),
}).readonly();

// ---------------------------------------------------------------------------------------------------------
// The whole config.

/** Components that exist before Argo CD can sync at all; making one an Application re-creates the circle. */
export const DEFAULT_PHASE0_COMPONENTS: readonly string[] = ['cnpg-operator', 'forgejo', 'forgejo-db', 'longhorn'];

/** A Helm chart that installs a Phase-0 component: its name and every repository it is published at. */
export const Phase0ChartSchema = z.strictObject({
  /** Chart name, e.g. `forgejo`. */
  chart: z.string().min(1),
  /** Repositories, `https://…` or `oci://…` without the chart name; compared without scheme, trailing '/' or case. */
  repos: z.array(z.string().min(1)).min(1).readonly(),
}).readonly();

/**
 * How to recognise a Phase-0 component inside an Argo CD Application, whatever it is called (see
 * lib/config/phase0-signatures.ts for the built-in ones). Add one for a mirror or a component of your own.
 */
export const Phase0SignatureSchema = z.strictObject({
  /** The component, as messages name it, e.g. `forgejo`. */
  component: z.string().min(1),
  /** Its part in the bring-up, one clause for messages, e.g. `it serves the git repository Argo CD syncs from`. */
  role: z.string().min(1),
  /** Helm charts that install it. @default [] */
  charts: z.array(Phase0ChartSchema).readonly().optional(),
  /**
   * Repo-relative directories that hold it; `{distPath}` stands for `git.distPath`. An Application reads one when a
   * git or plugin path is the directory or inside it, or a parent of it read with `recurse: true`. @default []
   */
  paths: z.array(z.string().min(1)).readonly().optional(),
  /** Image repositories (no tag or digest) that run it, e.g. `codeberg.org/forgejo/forgejo`. @default [] */
  images: z.array(z.string().min(1)).readonly().optional(),
}).readonly();

/** Why a database key is not a PostgreSQL identifier that PostgreSQL does not own. */
function databaseKeyProblem(v: string): string | undefined {
  const why = pgIdentifierProblem(v);
  if (why !== undefined) return `${show(v)} is not a valid PostgreSQL database name: ${why}.`;
  return RESERVED_DATABASE_NAMES.includes(v)
    ? `${show(v)} is reserved by PostgreSQL and must not be managed by CNPG; choose another name.` : undefined;
}

/**
 * The shape of the config with its defaults and single-field rules; the rule table (lib/config/rules.ts)
 * adds the rules that span fields.
 */
export const HomelabConfigShape = z.strictObject({
  /** Namespaces created in Phase 0, keyed by name. */
  namespaces: keyedRecord(namespaceNameProblem, NamespaceSchema).readonly(),
  /** CNPG clusters, keyed by the name of their `Cluster`; CNPG appends `-rw`, `-app`, `-<n>`, so at most 50. */
  postgresClusters: keyedRecord(objectNameProblem('cluster name', 50), PostgresClusterSchema).readonly(),
  /** Declarative databases, keyed by PostgreSQL name. */
  databases: keyedRecord(databaseKeyProblem, DatabaseSchema).readonly(),
  /** The git host. */
  forgejo: ForgejoSchema,
  /** The git source Argo CD reconciles. */
  git: GitSchema,
  /** The cluster the bootstrap runbook may change. @default {} (shown and confirmed, not pinned) */
  cluster: ClusterSchema.prefault({}),
  /** The steady-state Argo CD tree: project, Applications and waves. */
  argocd: ArgoCdSchema,
  /** Cilium, the CNI, installed first by the runbook with helm. @default {} */
  cilium: CiliumSchema.prefault({}),
  /** Longhorn, the storage, installed by the runbook with helm. @default {} */
  longhorn: LonghornSchema.prefault({}),
  /** Network isolation of the Phase-0 namespaces (NetworkPolicies). @default {} */
  network: NetworkSchema.prefault({}),
  /** Names that must never become Argo CD Applications. @default ['cnpg-operator', 'forgejo', 'forgejo-db', 'longhorn'] */
  phase0Components: z.array(z.string()).readonly().default(DEFAULT_PHASE0_COMPONENTS),
  /** Signatures of Phase-0 components besides the built-in ones (`PHASE0_SIGNATURES`), e.g. a chart mirror. @default [] */
  phase0Signatures: z.array(Phase0SignatureSchema).readonly().default([]),
  /**
   * The sha256 of every release manifest the bootstrap applies by URL, keyed by the URL (`curl -fsSL URL | sha256sum`),
   * or `'unpinned'`: the runbook then prints its sha256 and this line to pin it, and synth and plan warn. The runbook
   * verifies each download and applies the verified copy. Keyed by URL, so a pin bump that moves a URL fails synth
   * naming the new URL, and an entry no step applies is an error (lib/homelab/manifest-pins.ts).
   * @default REFERENCE_MANIFEST_SHA256 (lib/shared/manifest-integrity.ts)
   */
  manifestSha256: keyedRecord(manifestUrlProblem, checkedString(manifestSha256Problem)).readonly().default(REFERENCE_MANIFEST_SHA256),
  /** Continuous delivery of the app tier (ADR 0001 Part B): build, sign, update, verify, roll out, test. @default - none */
  delivery: DeliverySchema.optional(),
}).readonly();
