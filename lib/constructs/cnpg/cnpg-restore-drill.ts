import { Duration } from 'cdk8s';
import { k8s } from 'cdk8s-plus-30';
import { Construct } from 'constructs';
import { Cluster, ClusterSpecResourcesLimits, ClusterSpecResourcesRequests } from '../../../imports/cnpg-cluster-postgresql.cnpg.io';
import { PrometheusRule, PrometheusRuleSpecGroupsRules, PrometheusRuleSpecGroupsRulesExpr } from '../../../imports/prometheus-rule-monitoring.coreos.com';
import { BARMAN_CLOUD_PLUGIN, cronJobScheduleProblem, scheduleMaxIntervalSeconds } from '../../shared/backup';
import { COMMON_LABELS, selectorLabels } from '../../shared/labels';
import { IMAGES } from '../../shared/pins';
import { restrictedPodSecurityContext } from '../../shared/security';
import { BarmanObjectStore } from './barman-object-store';
import { prometheusDuration } from './cnpg-backup-alerts';
import { CnpgCluster } from './cnpg-cluster';
import { KUBECTL_UID, kubectlContainer } from './kubectl-container';

/** Properties for `CnpgRestoreDrill`. */
export interface CnpgRestoreDrillProps {
  /** The cluster whose latest backup is restored; it must archive through the Barman Cloud plugin (`walArchive`). */
  readonly cluster: CnpgCluster;
  /** Namespace of the throwaway cluster and of the drill's objects; never the cluster's own. */
  readonly namespace: string;
  /**
   * When the drill runs: a Kubernetes CronJob schedule, five fields.
   * @default '0 5 * * 0' (05:00 every Sunday)
   */
  readonly schedule?: string;
  /**
   * How long the throwaway cluster may take to become Ready before the drill fails.
   * @default Duration.hours(1)
   */
  readonly timeout?: Duration;
  /**
   * Labels the Prometheus selects PrometheusRules by; with them the drill defines its alerts.
   * @default - no alert rules (no Prometheus Operator to read them)
   */
  readonly alertSelectorLabels?: Readonly<Record<string, string>>;
  /**
   * Image whose entrypoint is `kubectl`.
   * @default - the pinned kubectl image of `lib/shared/pins.ts`
   */
  readonly image?: string;
  /**
   * Where the alerts point the operator to.
   * @default 'README.md, "Alerts and restore drill"'
   */
  readonly runbook?: string;
}

/** The longest name a CronJob may have: its Jobs are named `<cronjob>-<11 digits>`, at most 63 characters. */
const MAX_CRONJOB_NAME = 52;

/** How long removing a throwaway cluster (its Pods and PVCs) may take. */
const REMOVE_TIMEOUT = Duration.minutes(10);

/**
 * A scheduled restore drill: a CronJob recovers the latest backup of `cluster` into a throwaway CNPG Cluster
 * `<cluster>-drill` in `namespace`, waits for it to be Ready, checks that it is out of recovery and answers on the
 * recovered database, and deletes it. The Job's exit status is the drill's result; with `alertSelectorLabels` a
 * PrometheusRule alerts when the last drill failed or none succeeded for longer than the schedule allows.
 *
 * The Job's steps are init containers of the kubectl image, one `kubectl` call each (the image has no shell): delete a
 * throwaway left by an earlier drill, create the Cluster from the manifest in a ConfigMap, `kubectl wait` for its
 * `Ready` condition, `kubectl exec` psql in its primary, and, as the main container, delete it. A failed step ends the
 * Job there: the throwaway cluster is left for inspection and removed by the next drill's first step.
 *
 * The throwaway cluster never archives into the production archive: it has no `spec.plugins` entry, only an
 * `externalClusters[].plugin` to recover from. CNPG v1.30.0 archives WAL only through the plugins of `spec.plugins`
 * (`pkg/management/postgres/archiver/archiver.go`, `archiveWALViaPlugins`), and the plugin takes the ObjectStore it
 * archives to from that entry alone (plugin-barman-cloud v0.14.0 `internal/cnpgi/operator/config/config.go`,
 * `NewFromCluster`: `BarmanObjectName` from `spec.plugins`, the recovery object only from `externalClusters`); the
 * plugin's docs say the same (`web/docs/usage.md`, "Restoring a Cluster"). The ObjectStore it reads is a copy of the
 * production one in the drill namespace (the plugin looks ObjectStores up in the Cluster's namespace) without a
 * retention policy, so the drill never deletes backups either.
 *
 * The ServiceAccount's Role is limited to the drill namespace: CNPG Clusters (create, get, list, watch, delete), and
 * what `kubectl exec service/<name>` needs (get the Service, get, list and watch Pods, create `pods/exec`).
 */
export class CnpgRestoreDrill extends Construct {
  /** Name of the CronJob, its ServiceAccount, Role and RoleBinding, and of the throwaway Cluster. */
  public readonly name: string;
  public readonly namespace: string;
  public readonly schedule: string;
  public readonly timeout: Duration;
  public readonly cluster: CnpgCluster;
  /** The copy of the cluster's ObjectStore the throwaway cluster recovers from: `<cluster>-drill-source`. */
  public readonly sourceStore: BarmanObjectStore;
  /** The throwaway Cluster's manifest, as the Job creates it. */
  public readonly drillClusterManifest: Record<string, any>;
  /** Seconds without a successful drill after which it alerts: the schedule's longest gap, the timeout and an hour. */
  public readonly staleAfterSeconds: number;
  public readonly serviceAccount: k8s.KubeServiceAccount;
  public readonly role: k8s.KubeRole;
  public readonly roleBinding: k8s.KubeRoleBinding;
  public readonly configMap: k8s.KubeConfigMap;
  public readonly cronJob: k8s.KubeCronJob;
  /** The alert rules, when `alertSelectorLabels` are given. */
  public readonly rule?: PrometheusRule;
  public readonly alerts: readonly PrometheusRuleSpecGroupsRules[];

  constructor(scope: Construct, id: string, props: CnpgRestoreDrillProps) {
    super(scope, id);
    const cluster = props.cluster;
    this.cluster = cluster;
    this.namespace = props.namespace;
    this.name = `${cluster.name}-drill`;
    this.schedule = props.schedule ?? '0 5 * * 0';
    this.timeout = props.timeout ?? Duration.hours(1);
    const image = props.image ?? IMAGES.kubectl;
    const runbook = props.runbook ?? 'README.md, "Alerts and restore drill"';
    const archive = cluster.walArchive;
    if (archive === undefined) {
      throw new Error(`${this.node.path}: cluster '${cluster.name}' has no 'walArchive', so there is no backup to restore. ` +
        'Give the cluster a walArchive, or drop its drill.');
    }
    if (this.namespace === cluster.namespace) {
      throw new Error(`${this.node.path}: 'namespace' is '${this.namespace}', the cluster's own namespace; the throwaway cluster gets its own, ` +
        'e.g. \'restore-drill\'.');
    }
    if (this.name.length > MAX_CRONJOB_NAME) {
      throw new Error(`${this.node.path}: the drill's name '${this.name}' has ${this.name.length} characters; a CronJob's may have ` +
        `${MAX_CRONJOB_NAME}. Shorten the cluster name.`);
    }
    const problem = cronJobScheduleProblem(this.schedule);
    if (problem !== undefined) throw new Error(`${this.node.path}: 'schedule' ${problem}`);
    this.staleAfterSeconds = scheduleMaxIntervalSeconds(this.schedule, false) + this.timeout.toSeconds() + 3600;

    const labels = { ...COMMON_LABELS, ...selectorLabels('restore-drill', this.name) };
    const metadata = { name: this.name, namespace: this.namespace, labels };

    // A copy that reads the same place: same endpoint, bucket, path and credential Secret names (the Secret must exist
    // in the drill namespace; a read-only key is enough), and no retention policy, so the drill never deletes backups.
    this.sourceStore = new BarmanObjectStore(this, 'SourceStore', {
      ...archive.objectStore.settings,
      name: `${this.name}-source`,
      namespace: this.namespace,
      retentionPolicy: undefined,
    });

    const externalName = cluster.archiveServerName!;
    this.drillClusterManifest = Cluster.manifest({
      metadata: { name: this.name, namespace: this.namespace, labels },
      spec: {
        instances: 1,
        imageName: IMAGES.postgres,
        bootstrap: { recovery: { source: externalName, database: cluster.initdbDatabase, owner: cluster.initdbOwner } },
        externalClusters: [{
          name: externalName,
          plugin: { name: BARMAN_CLOUD_PLUGIN, parameters: { barmanObjectName: this.sourceStore.name, serverName: externalName } },
        }],
        // No `plugins`: the throwaway cluster archives nowhere (see the class comment).
        storage: { size: cluster.storageSize },
        resources: {
          requests: {
            cpu: ClusterSpecResourcesRequests.fromString(cluster.cpuRequest),
            memory: ClusterSpecResourcesRequests.fromString(cluster.memoryRequest),
          },
          limits: { memory: ClusterSpecResourcesLimits.fromString(cluster.memoryLimit) },
        },
      },
    });
    this.configMap = new k8s.KubeConfigMap(this, 'ClusterManifest', {
      metadata: { ...metadata, name: `${this.name}-cluster` },
      data: { 'cluster.json': `${JSON.stringify(this.drillClusterManifest, null, 2)}\n` },
    });

    this.serviceAccount = new k8s.KubeServiceAccount(this, 'ServiceAccount', { metadata, automountServiceAccountToken: true });
    this.role = new k8s.KubeRole(this, 'Role', {
      metadata,
      rules: [
        { apiGroups: ['postgresql.cnpg.io'], resources: ['clusters'], verbs: ['create', 'delete', 'get', 'list', 'watch'] },
        { apiGroups: [''], resources: ['services'], verbs: ['get'] },
        { apiGroups: [''], resources: ['pods'], verbs: ['get', 'list', 'watch'] },
        { apiGroups: [''], resources: ['pods/exec'], verbs: ['create'] },
      ],
    });
    this.roleBinding = new k8s.KubeRoleBinding(this, 'RoleBinding', {
      metadata,
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: this.name },
      subjects: [{ kind: 'ServiceAccount', name: this.name, namespace: this.namespace }],
    });

    const ns = `--namespace=${this.namespace}`;
    const drillCluster = `clusters.postgresql.cnpg.io/${this.name}`;
    const container = (name: string, args: string[]) =>
      kubectlContainer(name, image, args, [{ name: 'manifest', mountPath: '/drill', readOnly: true }]);
    const remove = ['delete', ns, drillCluster, '--ignore-not-found', '--wait=true', `--timeout=${REMOVE_TIMEOUT.toSeconds()}s`];
    // Out of recovery (promoted) and the recovered database accepts connections: a restore that stopped early, or
    // a backup without the application database, fails here.
    const check = 'DO $$ BEGIN IF pg_catalog.pg_is_in_recovery() THEN ' +
      `RAISE EXCEPTION 'the restored cluster ${this.name} is still in recovery'; END IF; END $$`;
    const steps = [
      container('remove-previous', remove),
      container('create', ['create', ns, '--filename=/drill/cluster.json']),
      // kubectl wait keeps waiting while `status.conditions` is absent, which is how CNPG writes an empty list
      // (v1.30.0 api/v1/cluster_types.go: `conditions,omitempty`); `Ready` is ConditionClusterReady.
      container('wait-ready', ['wait', ns, '--for=condition=Ready', `--timeout=${this.timeout.toSeconds()}s`, drillCluster]),
      // psql runs in the primary's `postgres` container as the OS user postgres over the local socket, which CNPG's
      // pg_hba (`local all all peer map=local`) and pg_ident (`local postgres postgres`) let in as the superuser
      // (v1.30.0 pkg/postgres/configuration.go): no password Secret is read.
      container('query', ['exec', ns, `service/${this.name}-rw`, '--container=postgres', '--',
        'psql', '--no-psqlrc', '--set=ON_ERROR_STOP=1', `--dbname=${cluster.initdbDatabase}`, `--command=${check}`]),
    ];
    const deadline = REMOVE_TIMEOUT.toSeconds() * 2 + this.timeout.toSeconds() + 600;
    this.cronJob = new k8s.KubeCronJob(this, 'Resource', {
      metadata,
      spec: {
        schedule: this.schedule,
        // Two drills at once would delete each other's throwaway cluster.
        concurrencyPolicy: 'Forbid',
        successfulJobsHistoryLimit: 1,
        failedJobsHistoryLimit: 1,
        jobTemplate: {
          metadata: { labels },
          spec: {
            // A retry starts with deleting the cluster the failed attempt left for inspection: one attempt per run.
            backoffLimit: 0,
            activeDeadlineSeconds: deadline,
            template: {
              metadata: { labels },
              spec: {
                serviceAccountName: this.name,
                restartPolicy: 'Never',
                securityContext: restrictedPodSecurityContext(KUBECTL_UID),
                initContainers: steps,
                containers: [container('remove', remove)],
                volumes: [
                  { name: 'tmp', emptyDir: { sizeLimit: k8s.Quantity.fromString('16Mi') } },
                  { name: 'manifest', configMap: { name: this.configMap.name } },
                ],
              },
            },
          },
        },
      },
    });
    this.cronJob.addDependency(this.serviceAccount, this.role, this.roleBinding, this.configMap, this.sourceStore);

    const alerts: PrometheusRuleSpecGroupsRules[] = [];
    if (props.alertSelectorLabels !== undefined) {
      // kube-state-metrics v2.20.0 (kube-prometheus-stack 88.5.3's subchart 8.4.0): kube_cronjob_status_last_schedule_time,
      // _last_successful_time (only once a Job succeeded), _active, kube_cronjob_created (docs/metrics/workload/cronjob-metrics.md).
      const sel = `namespace="${this.namespace}", cronjob="${this.name}"`;
      const stale = prometheusDuration(this.staleAfterSeconds);
      const who = `the restore drill ${this.namespace}/${this.name} of CNPG cluster ${cluster.namespace}/${cluster.name}`;
      alerts.push({
        alert: 'CnpgRestoreDrillFailed',
        expr: PrometheusRuleSpecGroupsRulesExpr.fromString(
          `kube_cronjob_status_last_schedule_time{${sel}} > kube_cronjob_status_last_successful_time{${sel}} ` +
          `and on (namespace, cronjob) kube_cronjob_status_active{${sel}} == 0`),
        for: '5m',
        labels: { severity: 'warning' },
        annotations: {
          summary: `The last restore drill of ${cluster.name} failed`,
          description: `The last run of ${who} ended without success: the latest backup could not be restored, or the restored ` +
            `cluster did not answer. The throwaway cluster ${this.name} is left for inspection (kubectl describe cluster ${this.name} ` +
            `-n ${this.namespace}; the failed Job's logs); the next drill removes it. See ${runbook}.`,
        },
      });
      alerts.push({
        alert: 'CnpgRestoreDrillNotSucceeded',
        expr: PrometheusRuleSpecGroupsRulesExpr.fromString(
          `time() - kube_cronjob_status_last_successful_time{${sel}} > ${this.staleAfterSeconds} ` +
          `or (time() - kube_cronjob_created{${sel}} > ${this.staleAfterSeconds} ` +
          `unless on (namespace, cronjob) kube_cronjob_status_last_successful_time{${sel}})`),
        for: '10m',
        labels: { severity: 'warning' },
        annotations: {
          summary: `No restore drill of ${cluster.name} succeeded for ${stale}`,
          description: `${who} has not succeeded for longer than its schedule '${this.schedule}' allows (${stale}): nothing proves ` +
            `the backups of ${cluster.name} can be restored. Check the CronJob (suspended? failing?); see ${runbook}.`,
        },
      });
      this.rule = new PrometheusRule(this, 'Alerts', {
        metadata: { name: `${this.name}-alerts`, namespace: this.namespace, labels: { ...labels, ...props.alertSelectorLabels } },
        spec: { groups: [{ name: `cnpg-restore-drill.${this.namespace}.${this.name}`, rules: alerts }] },
      });
    }
    this.alerts = alerts;
  }
}
