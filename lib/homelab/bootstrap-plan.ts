import { ApiObject, App, Duration } from 'cdk8s';
import { Construct } from 'constructs';
import { PodSecurityLevel, ResolvedHomelabConfig } from '../config/homelab-config';
import { resolveForgejoDatabase } from '../config/rules';
import { ArgoCdInstall } from '../constructs/argocd/argocd-install';
import { CnpgCluster } from '../constructs/cnpg/cnpg-cluster';
import { definePostgresCluster } from './postgres-props';
import { CnpgDatabase } from '../constructs/cnpg/cnpg-database';
import { CnpgOperator } from '../constructs/cnpg/cnpg-operator';
import { BarmanCloudPlugin } from '../constructs/cnpg/barman-cloud-plugin';
import { WaitForPostgresJob } from '../constructs/cnpg/wait-for-postgres-job';
import { BootstrapStep } from '../constructs/bootstrap/bootstrap-step';
import { ForgejoServer } from '../constructs/forgejo/forgejo-server';
import { ForgejoAdminJob } from '../constructs/forgejo/forgejo-admin-job';
import { defineForgejoBackup, FORGEJO_RESTORE_ROLLOUT_TIMEOUT } from './forgejo-backup-props';
import { installObjectStoreCredentials } from './object-store-credentials';
import { ForgejoBackupCronJob } from '../constructs/forgejo/forgejo-backup-cron-job';
import { ForgejoRestore } from '../constructs/forgejo/forgejo-restore';
import { forgejoRepoOwner } from './repo-url';
import { PodSecurityNamespace } from '../constructs/namespaces/pod-security-namespace';
import { RepoCredential } from '../constructs/argocd/repo-credential';
import { parseGithubSeed } from '../shared/git-urls';
import { goDurationSeconds } from '../shared/duration';
import { CiliumInstall } from '../constructs/cilium/cilium-install';
import { LonghornInstall } from '../constructs/longhorn/longhorn-install';
import { HelmReleaseSpec } from '../constructs/bootstrap/waits';
import { NetworkIsolation } from '../constructs/network/network-isolation';
import { NetworkPeer, NetworkPort, urlPeer, urlPort } from '../shared/network';
import { ConfigError } from '../shared/errors';
import { manifestPinProblems } from './manifest-pins';

/** How long the runbook waits for a Phase-0 cluster that is recovered from a backup (`restoreFrom`). */
export const POSTGRES_RESTORE_TIMEOUT = Duration.minutes(60);

/** A Helm release Phase 0 installs, with the Argo CD Application the config names to adopt it (if any). */
export interface Phase0HelmRelease {
  /** The component, as the Phase-0 signatures name it (`cilium`, `longhorn`). */
  readonly component: 'cilium' | 'longhorn';
  /** The config key that configures it, for messages (`cilium`, `longhorn`). */
  readonly configPath: string;
  readonly step: BootstrapStep;
  readonly release: HelmReleaseSpec;
  /** The Application that adopts the release (`<configPath>.adoptedBy`), or null. */
  readonly adoptedBy: string | null;
}

/** Everything Phase 0 defines for one CNPG cluster. */
export interface PostgresStep {
  readonly step: BootstrapStep;
  readonly cluster: CnpgCluster;
  readonly databases: readonly CnpgDatabase[];
  readonly wait: WaitForPostgresJob;
}

/** Properties for `BootstrapPlan`. */
export interface BootstrapPlanProps {
  /** The validated homelab config, every default applied (`parseHomelabConfig`). */
  readonly config: ResolvedHomelabConfig;
  /** The URL Argo CD reads the homelab repository from (the GitHub seed, or Forgejo after the cutover). */
  readonly repoUrl: (forgejo: ForgejoServer) => string;
}

/**
 * The Phase-0 control plane, one `BootstrapStep` per concern. Each step declares what it needs with
 * `dependsOn()` and the reason; the apply order and the `NN-` file numbers are derived from that.
 */
export class BootstrapPlan extends Construct {
  /** Cilium, the CNI, installed with helm before anything that needs a pod network. */
  public readonly ciliumStep: BootstrapStep;
  public readonly cilium: CiliumInstall;
  /** Longhorn, the storage, installed with helm before anything with a volume. */
  public readonly longhornStep: BootstrapStep;
  public readonly longhorn: LonghornInstall;
  public readonly namespaces: BootstrapStep;
  public readonly cnpgOperator: BootstrapStep;
  public readonly operator: CnpgOperator;
  /**
   * The Barman Cloud plugin, when any Postgres cluster of the config (Phase 0 or Argo CD) has `backup` or `restoreFrom`:
   * installed in Phase 0 with its own TLS Secrets, so it needs no cert-manager and runs before any Cluster names it.
   */
  public readonly barmanCloudPluginStep?: BootstrapStep;
  public readonly barmanCloudPlugin?: BarmanCloudPlugin;
  public readonly postgres: ReadonlyMap<string, PostgresStep>;
  /** The CNPG Clusters Phase 0 defines, by config key. */
  public readonly clusters: ReadonlyMap<string, CnpgCluster>;
  /** The CNPG Databases Phase 0 defines, by PostgreSQL name. */
  public readonly databases: ReadonlyMap<string, CnpgDatabase>;
  public readonly forgejoStep: BootstrapStep;
  public readonly forgejo: ForgejoServer;
  /** Provisions Forgejo's administrator, the mirror's API token and the repository owner. */
  public readonly forgejoAdmin: ForgejoAdminJob;
  /** The scheduled `forgejo dump` to the object store, when `forgejo.backup` is set. */
  public readonly forgejoBackup?: ForgejoBackupCronJob;
  /** The restore of Forgejo's data volume from a dump, when `forgejo.restoreFrom` is set. */
  public readonly forgejoRestore?: ForgejoRestore;
  public readonly argocdInstall: BootstrapStep;
  public readonly argocd: ArgoCdInstall;
  /** The credential of the URL the root app ends on: the GitHub seed, or Forgejo after the cutover. */
  public readonly repoCredentialStep: BootstrapStep;
  public readonly repoCredential: RepoCredential;
  /**
   * After the cutover only: the GitHub seed's credential, applied before Forgejo's, so a rebuilt cluster is seeded
   * from GitHub until the Forgejo mirror is verified.
   */
  public readonly seedCredentialStep?: BootstrapStep;
  /** After the cutover only: the GitHub seed's credential. */
  public readonly seedCredential?: RepoCredential;
  /** After the cutover only: the AppProject and the root app reading the GitHub seed (see `seedCredentialStep`). */
  public readonly seedRootStep?: BootstrapStep;
  /** The step that applies the AppProject and the root app-of-apps; the Argo CD tree adds them. */
  public readonly argocdRoot: BootstrapStep;
  /**
   * The NetworkPolicies of the Phase-0 namespaces (`network.isolatePhase0`): a default-deny in each and one allow per
   * workload, written in the step that applies the workload (the default-deny in the first such step of the namespace),
   * so it is isolated from its first start and its allows arrive with it. What Argo CD delivers (an Application that
   * opts in, one that runs pods in a Phase-0 namespace) is written with the root app, before Argo CD syncs it.
   */
  public readonly network?: NetworkIsolation;
  private readonly namespaceNames = new Set<string>();

  constructor(scope: App, id: string, props: BootstrapPlanProps) {
    super(scope, id);
    const config = props.config;
    const sorted = <T>(r: Readonly<Record<string, T>>) => Object.keys(r).sort().map((k) => [k, r[k]] as const);

    // On Talos no node is Ready and no pod starts before the CNI: every step that runs a pod depends on this one
    // (directly or through another step). Namespaces need no pod network, so they may come first.
    this.ciliumStep = new BootstrapStep(this, 'Cilium', {
      stepName: 'cilium',
      summary: 'Cilium, the CNI (helm upgrade --install of the pinned chart with the Talos settings)',
    });
    this.cilium = new CiliumInstall(this.ciliumStep, 'Release', {
      k8sServiceHost: config.cilium.k8sServiceHost,
      k8sServicePort: config.cilium.k8sServicePort,
      kubeProxyReplacement: config.cilium.kubeProxyReplacement,
      // The Phase-0 NetworkPolicies allow the API server by address (ipBlock), which Cilium matches only so.
      selectNodesByCidr: config.network.isolatePhase0,
    });
    this.ciliumStep.addComponent(this.cilium);

    this.namespaces = new BootstrapStep(this, 'Namespaces', {
      stepName: 'namespaces',
      summary: 'namespaces with Pod Security labels',
    });
    for (const [name, ns] of sorted(config.namespaces)) {
      this.namespaceNames.add(name);
      new PodSecurityNamespace(this.namespaces, name, { name, enforce: ns.podSecurity, warn: ns.podSecurityWarn });
    }

    this.longhornStep = new BootstrapStep(this, 'Longhorn', {
      stepName: 'longhorn',
      summary: 'Longhorn, the storage and its default StorageClass (helm upgrade --install of the pinned chart)',
    });
    this.longhorn = new LonghornInstall(this.longhornStep, 'Release', {
      namespace: config.longhorn.namespace,
      defaultDataPath: config.longhorn.defaultDataPath,
      replicaCount: config.longhorn.replicaCount,
      defaultClass: config.longhorn.defaultClass,
    });
    this.longhornStep.addComponent(this.longhorn);
    // Longhorn's manager and CSI plugin mount host paths: Talos' default (baseline) would reject them.
    this.addNamespace(this.longhorn.namespace, 'privileged');
    this.longhornStep.dependsOn(this.ciliumStep, 'Longhorn\'s pods need the pod network');
    this.longhornStep.dependsOn(this.namespaces, `Longhorn runs in namespace '${this.longhorn.namespace}' with the privileged Pod Security level`);

    this.cnpgOperator = new BootstrapStep(this, 'CnpgOperator', {
      stepName: 'cnpg-operator',
      summary: 'CloudNativePG operator (release manifest)',
    });
    this.operator = new CnpgOperator(this.cnpgOperator, 'Operator');
    this.cnpgOperator.addComponent(this.operator);
    this.cnpgOperator.dependsOn(this.namespaces, 'the operator runs in a namespace that carries Pod Security labels');
    this.cnpgOperator.dependsOn(this.ciliumStep, 'the operator\'s pod and its admission webhook need the pod network');

    const usesPlugin = (c: { backup?: unknown; restoreFrom?: unknown }) => c.backup !== undefined || c.restoreFrom !== undefined;
    if (Object.values(config.postgresClusters).some(usesPlugin)) {
      this.barmanCloudPluginStep = new BootstrapStep(this, 'BarmanCloudPlugin', {
        stepName: 'barman-cloud-plugin',
        summary: 'CNPG Barman Cloud plugin (release manifest without its cert-manager objects) and its self-signed TLS Secrets, ' +
          'renewed only by a re-run of the runbook',
      });
      this.barmanCloudPlugin = new BarmanCloudPlugin(this.barmanCloudPluginStep, 'Plugin');
      this.barmanCloudPluginStep.addComponent(this.barmanCloudPlugin);
      this.barmanCloudPluginStep.dependsOn(this.cnpgOperator, 'the plugin runs in the CNPG operator\'s namespace, and CNPG registers it ' +
        'from its Service there; its Deployment needs the pod network');
    }

    const postgres = new Map<string, PostgresStep>();
    for (const [name, c] of sorted(config.postgresClusters)) {
      if (c.deliveredBy !== 'bootstrap') continue;
      const step = new BootstrapStep(this, `Postgres-${name}`, {
        stepName: `postgres-${name}`,
        summary: `CNPG Cluster ${c.namespace}/${name}, its Phase-0 databases, and a Job that waits for them`,
      });
      step.dependsOn(this.namespaces, `the Cluster lives in namespace '${c.namespace}'`);
      step.dependsOn(this.cnpgOperator, 'CNPG\'s CRDs and admission webhook must serve before a Cluster is created');
      step.dependsOn(this.longhornStep, 'the Cluster\'s PVCs are provisioned by Longhorn\'s StorageClass');
      if (c.restoreFrom) {
        // CNPG bootstraps a Cluster only while it has no instances (cloudnative-pg v1.30.0
        // internal/controller/cluster_controller.go: createPrimaryInstance when status.instances == 0, which refuses once
        // the cluster IsInitialized), and its webhook lets spec.bootstrap change (internal/webhook/v1/cluster_webhook.go
        // validateClusterChanges has no bootstrap check): re-applied to a live cluster, restoreFrom restores nothing. Said
        // before the apply, so an operator who meant to restore over it knows.
        step.addPrecondition({
          kind: 'note-when-exists',
          resource: `clusters.postgresql.cnpg.io/${name}`,
          namespace: c.namespace,
          description: `Cluster ${c.namespace}/${name}`,
          whenExists: 'its bootstrap ran when it was created; restoreFrom is not applied again',
          whenAbsent: `it is created now and recovers server ${c.restoreFrom.serverName} from its object store (restoreFrom)`,
        });
      }
      if (this.barmanCloudPluginStep && usesPlugin(c)) {
        step.dependsOn(this.barmanCloudPluginStep, 'a Cluster naming an unregistered plugin stops reconciling: the Barman Cloud plugin ' +
          `must serve before the Cluster ${c.backup ? 'archives' : ''}${c.backup && c.restoreFrom ? ' and ' : ''}${c.restoreFrom ? 'recovers' : ''} through it`);
        installObjectStoreCredentials(step, c.namespace, [c.backup?.objectStore, c.restoreFrom?.objectStore], `cluster ${name}`);
      }
      // Its ObjectStores and ScheduledBackup, when it has backups, are written to the same step.
      const { cluster } = definePostgresCluster(step, 'Cluster', name, c);
      const databases = sorted(config.databases)
        .filter(([, d]) => d.cluster === name && d.deliveredBy === 'bootstrap')
        .map(([pgName, d]) => new CnpgDatabase(step, `Database-${pgName}`, {
          cluster, pgName, owner: d.owner, reclaimPolicy: d.reclaimPolicy,
        }));
      // A recovery downloads a base backup and replays WAL up to its target before the Cluster is Ready: give it the
      // hour Forgejo's restore gets, not the quarter of an hour a new, empty cluster needs.
      const wait = new WaitForPostgresJob(step, 'Wait', { cluster, databases, timeout: c.restoreFrom ? POSTGRES_RESTORE_TIMEOUT : undefined });
      step.addWait({
        kind: 'job-complete',
        namespace: wait.namespace,
        job: wait.name,
        watched: wait.watched,
        failWhen: wait.failWhen,
        timeoutSeconds: wait.timeout.toSeconds() + 120,
      });
      postgres.set(name, { step, cluster, databases, wait });
    }
    this.postgres = postgres;
    this.clusters = new Map([...postgres].map(([name, pg]) => [name, pg.cluster]));
    this.databases = new Map([...postgres.values()].flatMap((pg) => pg.databases.map((d) => [d.pgName, d] as const)));

    this.forgejoStep = new BootstrapStep(this, 'Forgejo', {
      stepName: 'forgejo',
      summary: 'Forgejo git host with Redis',
    });
    const target = resolveForgejoDatabase(config);
    if (target.kind !== 'found') throw new Error('internal: forgejo.database must be validated before building the plan');
    const pg = postgres.get(target.cluster);
    if (!pg) throw new Error('internal: Forgejo\'s cluster must be delivered by the bootstrap');
    this.forgejo = new ForgejoServer(this.forgejoStep, 'Server', {
      namespace: config.forgejo.namespace,
      database: { cluster: pg.cluster, pgName: config.forgejo.database, owner: target.owner },
      databaseSecret: config.forgejo.databaseSecret,
      storageSize: config.forgejo.storageSize,
      storageClass: config.forgejo.storageClass,
      expose: config.forgejo.expose,
      rolloutTimeout: config.forgejo.restoreFrom ? FORGEJO_RESTORE_ROLLOUT_TIMEOUT : undefined,
      // A restored database's 2FA secrets are encrypted with the lost Forgejo's key: install it, never a new one.
      secretKeyFile: config.forgejo.restoreFrom ? {
        variable: 'FORGEJO_SECRET_KEY_FILE',
        defaultPath: config.forgejo.restoreFrom.secretKeyFile,
        hint: `Save the lost Forgejo's SECRET_KEY in ${config.forgejo.restoreFrom.secretKeyFile} (chmod 600), exactly, without a ` +
          'trailing newline: from your off-cluster copy of Secret forgejo-secret-key (kubectl get secret forgejo-secret-key -n ' +
          `${config.forgejo.namespace} -o jsonpath='{.data.secret-key}' | base64 -d, run before the loss), or SECRET_KEY of ` +
          'custom/conf/app.ini in the Forgejo dump being restored.',
      } : undefined,
    });
    this.forgejoStep.addComponent(this.forgejo);
    // Repository data: a scheduled dump to the object store, and the restore that fills an empty volume first.
    ({ backup: this.forgejoBackup, restore: this.forgejoRestore } = defineForgejoBackup(this.forgejoStep, this.forgejo, config.forgejo, pg.step));
    // The administrator, the mirror's API token (in the Secret the mirror Job reads) and the owning organisation.
    this.forgejoAdmin = new ForgejoAdminJob(this.forgejoStep, 'Admin', {
      forgejo: this.forgejo,
      username: config.forgejo.admin.username,
      email: config.forgejo.admin.email,
      passwordSecret: config.forgejo.admin.passwordSecret,
      tokenSecret: { name: config.argocd.forgejoMirror.forgejoTokenSecret, key: config.argocd.forgejoMirror.forgejoTokenKey },
      repoOwner: forgejoRepoOwner(config),
    });
    // The Job calls Forgejo's API and uses its migrated database.
    this.forgejoAdmin.node.addDependency(this.forgejo);
    this.forgejoStep.addComponent(this.forgejoAdmin);
    this.forgejoStep.dependsOn(this.namespaces, `Forgejo lives in namespace '${this.forgejo.namespace}'`);
    this.forgejoStep.dependsOn(this.longhornStep, 'Forgejo\'s data volume is provisioned by Longhorn\'s StorageClass');
    // Forgejo crash-loops if it starts before CNPG has created its database.
    this.forgejo.node.addDependency(pg.wait);
    this.forgejoStep.dependsOn(pg.step, `Forgejo needs database '${config.forgejo.database}' created by CNPG, ` +
      `which Job ${pg.wait.namespace}/${pg.wait.name} proves`);

    this.argocdInstall = new BootstrapStep(this, 'ArgoCdInstall', {
      stepName: 'argocd-install',
      summary: 'Argo CD (upstream manifest) with health checks and the SOPS plugin',
    });
    this.argocd = new ArgoCdInstall(this.argocdInstall, 'ArgoCd');
    this.argocdInstall.addComponent(this.argocd);
    this.argocdInstall.dependsOn(this.namespaces, `Argo CD lives in namespace '${this.argocd.namespace}'`);
    this.argocdInstall.dependsOn(this.ciliumStep, 'Argo CD\'s pods need the pod network');

    const source = config.git.source;
    const seed = parseGithubSeed(config.git.githubSeedUrl);
    const credentialProps = (s: 'github' | 'forgejo') => ({
      // One Secret per git host: applying Forgejo's credential at the cutover leaves GitHub's working until
      // the root app has moved, so Argo CD is never without a credential for the URL it reads.
      name: `homelab-repo-${s}`,
      namespace: this.argocd.namespace,
      auth: s === 'github' ? 'ssh' as const : 'http-token' as const,
      secretFile: s === 'github' ? config.git.deployKeyFile : '~/.config/homelab/forgejo-read-token',
    });

    if (source === 'forgejo') {
      // A rebuild after the cutover: Forgejo starts empty, and only Argo CD, seeded from GitHub, creates its
      // pull-mirror. So the runbook seeds from GitHub first and flips to Forgejo once the mirror is verified.
      this.seedCredentialStep = new BootstrapStep(this, 'SeedCredential', {
        stepName: 'argocd-seed-credential',
        summary: 'Argo CD credential for the GitHub seed (deploy key read from a local file at apply time)',
      });
      this.seedCredential = new RepoCredential(this.seedCredentialStep, 'Credential', { ...credentialProps('github'), url: seed.url });
      this.seedCredentialStep.addComponent(this.seedCredential);
      this.seedCredentialStep.dependsOn(this.argocdInstall, 'the credential is a Secret in Argo CD\'s namespace, read by its repo-server');
      this.seedRootStep = new BootstrapStep(this, 'SeedRoot', {
        stepName: 'argocd-seed-root',
        summary: 'the homelab AppProject and the root app-of-apps reading the GitHub seed, until the Forgejo mirror is verified',
      });
      this.seedRootStep.dependsOn(this.argocdInstall, 'AppProject and Application are Argo CD CRDs');
      this.seedRootStep.dependsOn(this.seedCredentialStep, 'the root app reads the private GitHub seed');
    }

    this.repoCredentialStep = new BootstrapStep(this, 'RepoCredential', {
      stepName: 'argocd-repo-credential',
      summary: source === 'github'
        ? 'Argo CD repository credential (key read from a local file at apply time)'
        : 'verify the Forgejo pull-mirror holds the seed\'s commit, then Argo CD\'s Forgejo credential (token read at apply time)',
    });
    this.repoCredential = new RepoCredential(this.repoCredentialStep, 'Credential', {
      ...credentialProps(source),
      url: props.repoUrl(this.forgejo),
      // Forgejo's token can only be made once Forgejo runs: never required before this step.
      secretFileCheckedAt: source === 'github' ? 'preflight' : 'step',
    });
    this.repoCredentialStep.addComponent(this.repoCredential);
    this.repoCredentialStep.dependsOn(this.argocdInstall, 'the credential is a Secret in Argo CD\'s namespace, read by its repo-server');
    if (this.seedRootStep) {
      this.repoCredentialStep.dependsOn(this.forgejoStep, 'the mirror is verified through Forgejo\'s API');
      this.repoCredentialStep.dependsOn(this.seedRootStep, 'Argo CD, seeded from GitHub, creates the Forgejo pull-mirror (the forgejo-mirror Application)');
      const interval = config.argocd.forgejoMirror.mirrorInterval;
      this.repoCredentialStep.addPrecondition({
        kind: 'git-mirror-current',
        seedUrl: seed.url,
        seedKeyVariable: 'SEED_DEPLOY_KEY',
        branch: config.git.targetRevision,
        forgejoNamespace: this.forgejo.namespace,
        forgejoDeployment: this.forgejo.name,
        forgejoPort: this.forgejo.httpPort,
        repoOwner: forgejoRepoOwner(config),
        repoName: seed.repo,
        tokenVariable: 'FORGEJO_READ_TOKEN',
        // Argo CD syncs the mirror Application (a few minutes), then Forgejo pulls every mirror interval.
        timeoutSeconds: goDurationSeconds(interval) + 900,
        hint: 'Argo CD\'s forgejo-mirror Application, synced by the root app from the GitHub seed, creates the pull-mirror; ' +
          `Forgejo then pulls GitHub every ${interval}. Check: kubectl -n argocd get application forgejo-mirror, and its Job's logs ` +
          `in namespace '${this.forgejo.namespace}'. GitHub stays the repository you push to; the root app keeps reading it until this passes.`,
      });
    }

    this.argocdRoot = new BootstrapStep(this, 'ArgoCdRoot', {
      stepName: 'argocd-root',
      summary: source === 'github'
        ? 'the homelab AppProject and the root app-of-apps'
        : 'the homelab AppProject and the root app-of-apps, flipped to the verified Forgejo mirror',
    });
    // Declared first: cdk8s orders a step's dependencies depth first in declaration order, so Forgejo keeps its
    // place (and its file number) on both sides of the cutover.
    if (source === 'forgejo') {
      this.argocdRoot.dependsOn(this.forgejoStep, 'after the cutover the root app reads the repository Forgejo serves');
    }
    this.argocdRoot.dependsOn(this.argocdInstall, 'AppProject and Application are Argo CD CRDs');
    if (this.barmanCloudPluginStep && Object.values(config.postgresClusters).some((c) => c.deliveredBy === 'argocd' && usesPlugin(c))) {
      this.argocdRoot.dependsOn(this.barmanCloudPluginStep, 'Argo CD delivers Clusters that archive or recover through the Barman ' +
        'Cloud plugin (data-schemas), and a Cluster naming an unregistered plugin stops reconciling');
    }
    this.argocdRoot.dependsOn(this.repoCredentialStep, source === 'github'
      ? 'the root app reads a private repository'
      : 'the root app reads Forgejo only once its mirror is verified and Argo CD has its credential');

    if (config.network.isolatePhase0) this.network = this.isolatePhase0(config);

    // Every release manifest a step applies by URL is pinned by the config, and every pin is used.
    const pinProblems = manifestPinProblems(config, this.steps);
    if (pinProblems.length > 0) throw new ConfigError(pinProblems);
  }

  /**
   * Default-deny for every namespace that holds a Phase-0 workload, and the flows the Phase-0 constructs' props imply.
   * Each workload's allow policy is written in its own step (`place`); each namespace's default-deny in the first step
   * that runs a workload there (never the namespaces step: a dry-run of a file that creates a namespace and writes into
   * it is refused on a bare cluster).
   */
  private isolatePhase0(config: ResolvedHomelabConfig): NetworkIsolation {
    const operator = this.operator;
    const pgSteps = [...this.postgres.values()];
    const network = new NetworkIsolation(this.argocdRoot, 'NetworkIsolation', {
      kubernetesApiCidrs: config.network.kubernetesApiCidrs,
      kubernetesApiPort: config.network.kubernetesApiPort,
      clusterCidrs: [config.network.podCidr, config.network.serviceCidr],
    });
    // Each namespace's default-deny, in the first step (in apply order) that runs a workload there.
    network.isolateNamespace(operator.namespace, this.cnpgOperator);
    for (const pg of pgSteps) network.isolateNamespace(pg.cluster.namespace, pg.step);
    network.isolateNamespace(this.forgejo.namespace, this.forgejoStep);
    network.isolateNamespace(this.argocd.namespace, this.argocdInstall);
    // From the first default-deny on, pods reach the API server only at these addresses: the runbook checks the
    // cluster's own at its first step, before it changes anything.
    this.namespaces.addPrecondition({
      kind: 'api-endpoints-within',
      cidrs: config.network.kubernetesApiCidrs,
      port: config.network.kubernetesApiPort,
      cidrsSetting: 'network.kubernetesApiCidrs',
      portSetting: 'network.kubernetesApiPort',
      consequence: 'the NetworkPolicies of the next steps let pods reach the API server only there; outside, the wait Jobs, ' +
        'the CNPG operator and Argo CD would time out without an error',
    });
    // Where each workload's allow policy is written: the step that applies the workload.
    network.place(operator.peer, this.cnpgOperator);
    if (this.barmanCloudPlugin && this.barmanCloudPluginStep) network.place(this.barmanCloudPlugin.peer, this.barmanCloudPluginStep);
    for (const pg of pgSteps) {
      network.place(pg.cluster.peer, pg.step);
      network.place(pg.wait.peer, pg.step);
    }
    const backupPeers = this.forgejoBackup ? [this.forgejoBackup.peer] : [];
    const forgejoPeers = [this.forgejo.peer, this.forgejo.redisPeer, this.forgejoAdmin.peer, ...backupPeers];
    for (const peer of forgejoPeers) {
      network.place(peer, this.forgejoStep);
    }
    for (const peer of this.argocd.componentPeers) network.place(peer, this.argocdInstall);

    network.addWorkload(operator);
    if (this.barmanCloudPlugin) {
      network.addWorkload(this.barmanCloudPlugin);
      network.addFlow(this.barmanCloudPlugin.calledBy(operator));
    }
    for (const pg of pgSteps) {
      network.addWorkload(pg.cluster);
      network.addFlow(operator.manages(pg.cluster));
      network.addWorkload(pg.wait);
    }
    for (const workload of [this.forgejo, this.forgejoAdmin, this.forgejoBackup, this.forgejoRestore]) {
      if (workload) network.addWorkload(workload);
    }
    network.addWorkload(this.argocd);
    // Argo CD's repo-server reads the repository from every URL a credential is installed for: the GitHub seed, and
    // Forgejo after the cutover.
    for (const credential of [this.seedCredential, this.repoCredential]) {
      if (!credential) continue;
      const host = this.gitHost(credential.url);
      network.addFlow({ from: this.argocd.repoServerPeer, to: host.peer, ports: [host.port], reason: `RepoCredential.url: Argo CD reads ${credential.url}` });
    }
    return network;
  }

  /** Where a git URL is served: Forgejo's pods and HTTP port for its in-cluster URL, else the host outside the cluster. */
  private gitHost(url: string): { peer: NetworkPeer; port: NetworkPort } {
    return url.startsWith(this.forgejo.inClusterHttpUrl)
      ? { peer: this.forgejo.peer, port: { port: this.forgejo.httpPort, name: 'http' } }
      : { peer: urlPeer(url, 'git host'), port: urlPort(url) };
  }

  /**
   * Adds a namespace to the Phase-0 namespaces step, unless it is already there. Used for the namespaces
   * Argo CD Applications deploy to: the wave-0 `sops-secrets` Application delivers Secrets into them before
   * their own Applications sync, and Argo CD cannot apply into a namespace that does not exist yet.
   */
  public addNamespace(name: string, enforce: PodSecurityLevel, warn: PodSecurityLevel = enforce, labels?: Readonly<Record<string, string>>): void {
    if (this.namespaceNames.has(name)) return;
    this.namespaceNames.add(name);
    new PodSecurityNamespace(this.namespaces, name, { name, enforce, warn, labels });
  }

  /**
   * After the cutover only: makes a re-run of the runbook leave a cluster alone whose root app already reads what the
   * flip step applies. The seed-root step is skipped when the live `root` Application's `spec.source.repoURL` equals
   * that of `root` (the object `argocdRoot` applies), so it never points the root app back at the GitHub seed, which
   * would make Argo CD rewrite every child Application until the flip. Nothing else changes: the verify step after it
   * still refuses to go on while the mirror is missing or stale, and the flip re-applies what is there.
   *
   * The seed-credential step is not skipped: it re-applies the same Secret for the GitHub URL (a server-side apply that
   * changes nothing, or a rotated deploy key), which no Application reads after the flip.
   */
  public skipSeedRootOnceFlipped(root: ApiObject): void {
    if (!this.seedRootStep) return;
    const app = root.toJson();
    const group = String(app.apiVersion).split('/')[0];
    const repoURL = app.spec?.source?.repoURL;
    if (app.kind !== 'Application' || group !== 'argoproj.io' || typeof repoURL !== 'string') {
      throw new Error(`internal: the root app ${app.metadata?.name} must be an argoproj.io Application with one spec.source.repoURL`);
    }
    this.seedRootStep.addPrecondition({
      kind: 'skip-when',
      resource: `applications.${group}/${root.name}`,
      namespace: app.metadata.namespace,
      jsonPath: '{.spec.source.repoURL}',
      equals: repoURL,
      reason: 'the root app already reads the verified Forgejo mirror',
    });
  }

  /**
   * Makes the runbook install the age key the SOPS plugin decrypts with, from the local file `ageKeyFile`, as the
   * Secret the repo-server mounts, before Argo CD is applied: without it the `sops-secrets` Application cannot
   * decrypt, and every Secret it delivers is missing. The runbook refuses to start without the file.
   */
  public installSopsAgeKey(ageKeyFile: string): void {
    this.argocdInstall.addPrecondition({
      kind: 'secret-from-file',
      namespace: this.argocd.namespace,
      name: this.argocd.sopsAgeSecretName,
      key: this.argocd.sopsAgeSecretKey,
      variable: 'SOPS_AGE_KEY_FILE',
      defaultPath: ageKeyFile,
      format: 'age-identity',
      hint: `Save the age identity the repository's *.enc.yaml are encrypted to in ${ageKeyFile} (chmod 600); `
        + `a new one: age-keygen -o ${ageKeyFile}, then encrypt the secrets to its public key.`,
    });
  }

  /** The Helm releases Phase 0 installs, with the Application the config names to adopt each. */
  public phase0Releases(config: ResolvedHomelabConfig): Phase0HelmRelease[] {
    return [
      { component: 'cilium', configPath: 'cilium', step: this.ciliumStep, release: this.cilium.release, adoptedBy: config.cilium.adoptedBy },
      { component: 'longhorn', configPath: 'longhorn', step: this.longhornStep, release: this.longhorn.release, adoptedBy: config.longhorn.adoptedBy },
    ];
  }

  /** Every step, in declaration order (the apply order is derived from dependencies). */
  public get steps(): BootstrapStep[] {
    return [
      this.ciliumStep, this.namespaces, this.longhornStep, this.cnpgOperator,
      ...(this.barmanCloudPluginStep ? [this.barmanCloudPluginStep] : []), ...[...this.postgres.values()].map((p) => p.step),
      this.forgejoStep, this.argocdInstall,
      ...(this.seedCredentialStep ? [this.seedCredentialStep] : []), ...(this.seedRootStep ? [this.seedRootStep] : []),
      this.repoCredentialStep, this.argocdRoot,
    ];
  }
}
