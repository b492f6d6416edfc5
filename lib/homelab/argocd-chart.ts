import { ApiObject, App, Chart } from 'cdk8s';
import { Construct } from 'constructs';
import { CnpgCluster } from '../constructs/cnpg/cnpg-cluster';
import { definePostgresCluster } from './postgres-props';
import { CnpgScheduledBackup } from '../constructs/cnpg/cnpg-scheduled-backup';
import { CnpgDatabase } from '../constructs/cnpg/cnpg-database';
import type { ResolvedApplicationConfig } from '../config/argocd-config';
import type { ResolvedHomelabConfig } from '../config/homelab-config';
import { ProblemCollector } from '../shared/errors';
import { kubernetesNameForPg } from '../shared/names';
import { chartManifests } from '../output/chart-manifests';
import { OutputFiles, OutputTree, serializeFiles, sortedTree } from '../output/output-tree';
import { DataSchemas } from '../constructs/argocd/data-schemas';
import { ARGOCD_DIST } from '../shared/dist-layout';
import { ForgejoMirrorJob } from '../constructs/forgejo/forgejo-mirror-job';
import { HomelabApplication } from '../constructs/argocd/homelab-application';
import { HomelabProject } from '../constructs/argocd/homelab-project';
import { HomelabRepo } from '../constructs/argocd/homelab-repo';
import { podSecurityNamespaceMetadata } from '../shared/pod-security';
import { ForgejoEndpoint, parseGithubSeed } from '../shared/git-urls';
import { forgejoRepoOwner, homelabRepoFor } from './repo-url';
import { RootApp } from '../constructs/argocd/root-app';
import { SYNC_WAVES } from '../shared/sync-waves';
import { TemporalApplication } from '../constructs/temporal/temporal-application';
import {
  applicationNameProblems, GENERATED_APPLICATIONS, phase0NamespaceProblems, temporalDatabasesProblem, unmanagedProblems,
} from './validate-argocd-config';
import { sortKeys } from '../constructs/temporal/temporal-values';
import { AdoptableRelease, adoptedValueFiles } from './phase0-adoption';
import { BackupChecks } from '../constructs/argocd/backup-checks';
import { defineBackupChecks } from './backup-checks';
import { defineDelivery, DeliveryPart } from './delivery';

export { GENERATED_APPLICATIONS } from './validate-argocd-config';

/** Properties for `ArgoCdChart`. */
export interface ArgoCdChartProps {
  /** The homelab config; the chart reads `argocd`, `git`, `forgejo`, `namespaces`, `postgresClusters`, `databases`. */
  readonly config: ResolvedHomelabConfig;
  /** Forgejo's in-cluster endpoint, from the bootstrap's Forgejo construct. */
  readonly forgejo: ForgejoEndpoint;
  /**
   * The CNPG Clusters and Databases Phase 0 defines, by config key, for the Applications that use them.
   * @default - none: every cluster and database the tree refers to is delivered by Argo CD
   */
  readonly phase0Postgres?: {
    readonly clusters: ReadonlyMap<string, CnpgCluster>;
    readonly databases: ReadonlyMap<string, CnpgDatabase>;
  };
  /**
   * The Phase-0 Helm releases, with the Application that adopts each and the path of the values file the runbook
   * installed it with: the adopting Application reads that very file (checked by `phase0AdoptionProblems`).
   * @default - none: no Application adopts a Phase-0 release
   */
  readonly phase0Releases?: readonly AdoptableRelease[];
}

/** A Secret the tree references but never defines; it must be delivered (by SOPS) before its consumer syncs. */
export interface SecretReference {
  readonly namespace: string;
  readonly name: string;
  readonly keys: readonly string[];
  /** Who reads it, for runbooks and preflight checks. */
  readonly usedBy: string;
}

/**
 * The steady-state Argo CD tree: the `homelab` AppProject, the root app-of-apps, one Application per
 * deployable directory of the catalog, and the generated Applications with their files (Temporal's values,
 * the data-schemas manifests, the Forgejo mirror Job). `render()` returns every file, relative to `dist/`.
 */
export class ArgoCdChart extends Chart {
  public readonly repo: HomelabRepo;
  public readonly project: HomelabProject;
  public readonly root: RootApp;
  /** The `projects` Application, which reconciles `argocd/projects/` after Phase 0. */
  public readonly projectsApp: HomelabApplication;
  public readonly sopsSecrets: HomelabApplication;
  public readonly forgejoMirrorApp: HomelabApplication;
  public readonly forgejoMirrorJob: ForgejoMirrorJob;
  public readonly dataSchemas?: DataSchemas;
  public readonly temporal?: TemporalApplication;
  /** Backup alerts and restore drills, when some cluster has backups. */
  public readonly backupChecks?: BackupChecks;
  /** Every Application under the root, by name. */
  public readonly applications: ReadonlyMap<string, HomelabApplication>;
  /** Secrets the tree references, sorted by namespace and name. */
  public readonly secretReferences: readonly SecretReference[];
  /** The Phase-0 Helm releases, each with the Application that adopts it and the values file both read. */
  public readonly phase0Releases: readonly AdoptableRelease[];
  /** The parts of the steady-state delivery (`config.delivery`); empty without it. */
  public readonly delivery: readonly DeliveryPart[];

  constructor(scope: Construct, id: string, props: ArgoCdChartProps) {
    super(scope, id, { disableResourceNameHashes: true });
    const { config } = props;
    const argocd = config.argocd;
    checkConfig(config);

    this.repo = homelabRepoFor(config, props.forgejo);
    this.phase0Releases = props.phase0Releases ?? [];
    this.project = new HomelabProject(this, 'Project', { repo: this.repo, name: argocd.project });
    this.root = new RootApp(this, 'Root', { project: this.project, repo: this.repo });
    const apps = new Map<string, HomelabApplication>();
    const secrets: SecretReference[] = [];
    const phase0Namespaces = new Set(Object.keys(config.namespaces));
    const created = (ns: string) => !phase0Namespaces.has(ns);

    const base = { project: this.project, repo: this.repo };
    this.projectsApp = new HomelabApplication(this, 'ProjectsApp', {
      ...base,
      name: GENERATED_APPLICATIONS.projects,
      sources: [{ kind: 'git-path', path: this.repo.distFile(ARGOCD_DIST.projects) }],
      namespace: this.project.namespace,
      syncWave: SYNC_WAVES.SUBSTRATE,
    });
    apps.set(this.projectsApp.name, this.projectsApp);

    const sops = argocd.sopsSecrets;
    this.sopsSecrets = new HomelabApplication(this, 'SopsSecrets', {
      ...base,
      name: GENERATED_APPLICATIONS.sopsSecrets,
      sources: [{ kind: 'plugin', path: '.', pluginName: sops.pluginName }],
      namespace: sops.namespace,
      syncWave: sops.syncWave,
      spansProjectNamespaces: true,
      // Secrets are shared with nobody: two Applications applying one Secret is a mistake worth a failed sync.
      syncOptions: ['FailOnSharedResource'],
    });
    apps.set(this.sopsSecrets.name, this.sopsSecrets);

    // Forgejo pull-mirror of the GitHub seed (keeps the post-cutover source current).
    const mirror = argocd.forgejoMirror;
    const forgejoNamespace = config.forgejo.namespace;
    const mirrorScope = new Construct(this, 'ForgejoMirror');
    this.forgejoMirrorJob = new ForgejoMirrorJob(mirrorScope, 'Job', {
      forgejo: props.forgejo,
      namespace: forgejoNamespace,
      seed: parseGithubSeed(config.git.githubSeedUrl),
      repoOwner: forgejoRepoOwner(config),
      githubToken: { name: mirror.githubTokenSecret, key: mirror.githubTokenKey },
      forgejoAdminToken: { name: mirror.forgejoTokenSecret, key: mirror.forgejoTokenKey },
      mirrorInterval: mirror.mirrorInterval,
    });
    this.forgejoMirrorApp = new HomelabApplication(mirrorScope, 'Application', {
      ...base,
      name: GENERATED_APPLICATIONS.forgejoMirror,
      sources: [{ kind: 'git-path', path: this.repo.distFile(ARGOCD_DIST.forgejoMirror) }],
      namespace: forgejoNamespace,
      syncWave: mirror.syncWave,
      dependsOn: [this.sopsSecrets],
    });
    apps.set(this.forgejoMirrorApp.name, this.forgejoMirrorApp);
    for (const token of [this.forgejoMirrorJob.githubToken, this.forgejoMirrorJob.forgejoAdminToken]) {
      secrets.push({ namespace: forgejoNamespace, name: token.name, keys: [token.key], usedBy: `Job ${this.forgejoMirrorJob.name}` });
    }

    // The CNPG objects Argo CD delivers are defined here and written to data-schemas/; the Phase-0 ones come
    // from the bootstrap, which writes them. Either may host a database the tree refers to.
    const postgres = new Construct(this, 'Postgres');
    const clusters = new Map<string, CnpgCluster>(props.phase0Postgres?.clusters ?? []);
    const deliveredClusters: CnpgCluster[] = [];
    const scheduledBackups: CnpgScheduledBackup[] = [];
    for (const [name, c] of sortedEntries(config.postgresClusters)) {
      if (c.deliveredBy !== 'argocd') continue;
      const { cluster, objectStores, scheduledBackup } = definePostgresCluster(postgres, `Cluster-${name}`, name, c);
      clusters.set(name, cluster);
      deliveredClusters.push(cluster);
      if (scheduledBackup) scheduledBackups.push(scheduledBackup);
      // The object-store credentials are provided like the role Secrets: in the cluster's namespace, never in git.
      // objectStores is [backup store, restore store] without duplicates; a separate restore store has its own config.
      objectStores.forEach((store, i) => {
        const k = (i === 0 && c.backup ? c.backup.objectStore : c.restoreFrom?.objectStore ?? c.backup!.objectStore).credentials;
        const keys = [k.accessKeyIdKey, k.secretAccessKeyKey, ...(k.regionKey ? [k.regionKey] : [])];
        secrets.push({ namespace: c.namespace, name: k.secretName, keys, usedBy: `ObjectStore ${store.name}` });
      });
    }
    const databases = new Map<string, CnpgDatabase>(props.phase0Postgres?.databases ?? []);
    const deliveredDatabases: CnpgDatabase[] = [];
    // In the order data-schemas writes them: by Kubernetes name.
    const argoDatabases = sortedEntries(config.databases).filter(([, d]) => d.deliveredBy === 'argocd')
      .sort(([a], [b]) => (kubernetesNameForPg(a) < kubernetesNameForPg(b) ? -1 : kubernetesNameForPg(a) > kubernetesNameForPg(b) ? 1 : 0));
    for (const [pgName, d] of argoDatabases) {
      const cluster = clusters.get(d.cluster);
      if (!cluster) throw new Error(`database '${pgName}': cluster '${d.cluster}' is not a key of postgresClusters.`);
      const database = new CnpgDatabase(postgres, `Database-${pgName}`, { cluster, pgName, owner: d.owner, reclaimPolicy: d.reclaimPolicy });
      databases.set(pgName, database);
      deliveredDatabases.push(database);
    }
    if (deliveredClusters.length + deliveredDatabases.length > 0) {
      const namespace = [...deliveredClusters, ...deliveredDatabases].map((o) => o.namespace).sort()[0];
      this.dataSchemas = new DataSchemas(this, 'DataSchemas', {
        ...base,
        clusters: deliveredClusters,
        databases: deliveredDatabases,
        scheduledBackups,
        syncWave: argocd.dataSchemas.syncWave,
        createNamespace: created(namespace),
        // CNPG operands comply with the restricted profile.
        managedNamespaceMetadata: created(namespace) ? podSecurityNamespaceMetadata('restricted') : undefined,
        dependsOn: [this.sopsSecrets],
      });
      apps.set(this.dataSchemas.name, this.dataSchemas);
      for (const c of deliveredClusters) {
        for (const role of c.managedRoles) {
          secrets.push({ namespace: c.namespace, name: c.roleSecretName(role), keys: ['username', 'password'], usedBy: `CNPG Cluster ${c.name}` });
        }
      }
    }

    const temporal = argocd.temporal;
    if (temporal) {
      const defaultDatabase = databases.get(temporal.defaultDatabase);
      const visibilityDatabase = databases.get(temporal.visibilityDatabase);
      const problem = temporalDatabasesProblem(config, temporal);
      if (problem || !defaultDatabase || !visibilityDatabase) throw new Error(`temporal: ${problem}`);
      const viaArgo = [defaultDatabase, visibilityDatabase].some((d) => config.databases[d.pgName].deliveredBy === 'argocd');
      const namespace = temporal.namespace;
      this.temporal = new TemporalApplication(this, 'Temporal', {
        ...base,
        defaultDatabase,
        visibilityDatabase,
        chartVersion: temporal.chartVersion,
        syncWave: temporal.syncWave,
        namespace,
        sqlPlugin: temporal.sqlPlugin,
        numHistoryShards: temporal.numHistoryShards,
        passwordSecretName: temporal.passwordSecretName,
        valuesOverride: temporal.valuesOverride,
        managedNamespaceMetadata: podSecurityNamespaceMetadata('baseline', 'restricted'),
        dependsOn: viaArgo && this.dataSchemas ? [this.dataSchemas] : [],
      });
      apps.set(this.temporal.name, this.temporal);
      secrets.push({ namespace, name: this.temporal.passwordSecretName, keys: ['password'], usedBy: `Temporal (role ${this.temporal.user})` });
    }

    const catalog = new Construct(this, 'Catalog');
    for (const [name, app] of sortedEntries(argocd.applications)) {
      apps.set(name, catalogApplication(catalog, name, app, base, this.phase0Releases));
    }
    for (const [name, app] of sortedEntries(argocd.applications)) {
      for (const dep of app.dependsOn) apps.get(name)!.addDependsOn(apps.get(dep)!);
    }

    this.delivery = defineDelivery(new Construct(this, 'Delivery'), { config, project: this.project, repo: this.repo, forgejo: props.forgejo, applications: apps });
    for (const part of this.delivery) {
      for (const app of part.applications) apps.set(app.name, app);
      secrets.push(...part.secrets);
    }

    this.backupChecks = defineBackupChecks(new Construct(this, 'Backups'), config, {
      ...base, clusters, applications: [...apps.values()], sopsSecrets: this.sopsSecrets,
    });
    if (this.backupChecks) {
      apps.set(this.backupChecks.name, this.backupChecks);
      // The drill's copy of each ObjectStore reads the production store's credentials Secret, in the drill namespace.
      for (const drill of this.backupChecks.drills) {
        const s = drill.sourceStore.settings;
        const keys = [s.accessKeyId.key, s.secretAccessKey.key, ...(s.region ? [s.region.key] : [])];
        secrets.push({ namespace: drill.namespace, name: s.accessKeyId.name, keys, usedBy: `ObjectStore ${drill.sourceStore.name}` });
        if (s.endpointCa) secrets.push({ namespace: drill.namespace, name: s.endpointCa.name, keys: [s.endpointCa.key], usedBy: `ObjectStore ${drill.sourceStore.name}` });
      }
    }

    const problems = new ProblemCollector();
    unmanagedProblems(argocd.unmanaged, [...apps.values()], problems);
    phase0NamespaceProblems(phase0Namespaces, [...apps.values()], problems);
    problems.check();

    this.applications = new Map([...apps.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
    this.secretReferences = secrets.sort((a, b) => (`${a.namespace}/${a.name}` < `${b.namespace}/${b.name}` ? -1 : 1));
  }

  /**
   * Every file of the tree, relative to `dist/`, in sorted order: `argocd/projects/<project>.yaml`,
   * `argocd/root/<root>.yaml`, `argocd/apps/<name>.yaml`, and the generated values, data-schemas and mirror
   * files. The objects are the chart's own manifests (`chart.toJson()`, which runs the app's validations and
   * throws with all of their messages), each written to the file of the construct that defined it.
   */
  public render(): OutputTree {
    return serializeFiles(this.renderFiles());
  }

  /** The files of `render()` as documents, before they are serialized. */
  public renderFiles(): OutputFiles {
    const fileOf = new Map<ApiObject, string>([
      [this.project.resource, `${ARGOCD_DIST.projects}/${this.project.name}.yaml`],
      [this.root.resource, `${ARGOCD_DIST.root}/${this.root.name}.yaml`],
      ...[...this.applications].map(([name, app]): [ApiObject, string] => [app.resource, `${ARGOCD_DIST.apps}/${name}.yaml`]),
      [this.forgejoMirrorJob.job, `${ARGOCD_DIST.forgejoMirror}/${this.forgejoMirrorJob.name}.yaml`],
      [this.forgejoMirrorJob.cronJob, `${ARGOCD_DIST.forgejoMirror}/${this.forgejoMirrorJob.name}.yaml`],
      ...(this.dataSchemas?.fileOfObjects() ?? []),
      ...(this.backupChecks?.fileOfObjects() ?? []),
      ...this.delivery.flatMap((part) => part.files),
    ]);
    // Within a file, objects keep the order their constructs give them (data-schemas: a Cluster, then its Databases).
    const rank = new Map([...fileOf.keys()].map((obj, i) => [obj, i]));
    const files = new Map<string, { rank: number; json: Record<string, any> }[]>();
    for (const { obj, json } of chartManifests(this)) {
      const file = fileOf.get(obj);
      if (file === undefined) throw new Error(`${obj.node.path}: ${obj.kind} '${obj.name}' is defined in the Argo CD tree but written to no file`);
      files.set(file, [...(files.get(file) ?? []), { rank: rank.get(obj)!, json }]);
    }
    const tree: OutputFiles = new Map([...files].map(([file, objects]) => [file, objects.sort((a, b) => a.rank - b.rank).map((o) => o.json)]));
    if (this.temporal) tree.set(this.temporal.valuesFile, [sortKeys(this.temporal.values)]);
    for (const [file, documents] of this.delivery.flatMap((part) => [...(part.extraFiles ?? new Map())])) {
      if (tree.has(file)) throw new Error(`${file} is written twice: by the delivery parts and by the Argo CD tree`);
      tree.set(file, documents);
    }
    return sortedTree(tree);
  }
}

/**
 * The entry point of the steady-state tree: defines the `ArgoCd` chart in `scope` and returns it; call
 * `render()` for the files.
 */
export function buildArgoCdTree(scope: App, props: ArgoCdChartProps): ArgoCdChart {
  return new ArgoCdChart(scope, 'ArgoCd', props);
}

function catalogApplication(scope: Construct, name: string, app: ResolvedApplicationConfig,
  base: { project: HomelabProject; repo: HomelabRepo }, releases: readonly AdoptableRelease[]): HomelabApplication {
  // An Application that adopts a Phase-0 release reads the values file the runbook installed it with: one file.
  const sources = app.sources.map((s) => {
    const adopted = s.kind === 'helm-chart' ? adoptedValueFiles(name, s.chart, releases) : undefined;
    return adopted ? { ...s, valueFiles: adopted } : s;
  });
  return new HomelabApplication(scope, name, {
    ...base,
    name,
    sources,
    namespace: app.namespace,
    syncWave: app.syncWave,
    syncOptions: app.syncOptions,
    managedNamespaceMetadata: app.managedNamespaceMetadata,
    ignoreDifferences: app.ignoreDifferences,
    clusterResources: app.clusterResources,
    additionalNamespaces: app.additionalNamespaces,
    spansProjectNamespaces: app.spansProjectNamespaces,
    automatedSync: app.automatedSync,
  });
}

/** Names and dependencies of the Argo CD section, checked together before any construct is defined. */
function checkConfig(config: ResolvedHomelabConfig): void {
  const problems = new ProblemCollector();
  applicationNameProblems(config, problems);
  problems.check();
}

function sortedEntries<T>(record: Readonly<Record<string, T>>): [string, T][] {
  return Object.entries(record).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
}
