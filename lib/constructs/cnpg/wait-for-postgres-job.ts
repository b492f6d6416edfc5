import { Duration } from 'cdk8s';
import { k8s } from 'cdk8s-plus-30';
import { Construct } from 'constructs';
import { COMMON_LABELS, selectorLabels } from '../../shared/labels';
import { IMAGES } from '../../shared/pins';
import { restrictedPodSecurityContext } from '../../shared/security';
import { CnpgCluster } from './cnpg-cluster';
import { KUBECTL_UID, kubectlContainer } from './kubectl-container';
import { CnpgDatabase } from './cnpg-database';
import { INetworkWorkload, KUBERNETES_API, NetworkFlow, podPeer, PodPeer } from '../../shared/network';

/** Properties for `WaitForPostgresJob`. */
export interface WaitForPostgresJobProps {
  /** The cluster that must report `Ready`. */
  readonly cluster: CnpgCluster;
  /**
   * Databases on `cluster` that must report `status.applied: true`.
   * @default []
   */
  readonly databases?: readonly CnpgDatabase[];
  /**
   * How long the Job waits before it fails.
   * @default Duration.minutes(15)
   */
  readonly timeout?: Duration;
  /**
   * Image whose entrypoint is `kubectl`.
   * @default - the pinned kubectl image of `lib/shared/pins.ts`
   */
  readonly image?: string;
}

/**
 * A Job that completes only when CNPG has really done the work: the `Cluster` reports the `Ready` condition
 * (CNPG's `ConditionClusterReady`), then every `Database` reports `status.applied: true`, which CNPG sets
 * after `CREATE DATABASE` ran. A Database CR that merely exists proves nothing; that was the Forgejo race.
 *
 * It calls `kubectl wait` through the image's entrypoint, never a shell, so it works on the distroless
 * kubectl images. On timeout kubectl names every object still not ready; the runbook then prints each one's
 * `status.message`. Its ServiceAccount can only get, list and watch the cluster and databases in its
 * namespace.
 */
export class WaitForPostgresJob extends Construct implements INetworkWorkload {
  /** Name of the Job (and of its ServiceAccount, Role and RoleBinding). */
  public readonly name: string;
  public readonly namespace: string;
  public readonly timeout: Duration;
  public readonly cluster: CnpgCluster;
  public readonly databases: readonly CnpgDatabase[];
  public readonly job: k8s.KubeJob;

  constructor(scope: Construct, id: string, props: WaitForPostgresJobProps) {
    super(scope, id);
    this.cluster = props.cluster;
    this.databases = [...(props.databases ?? [])].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    this.namespace = this.cluster.namespace;
    this.name = `wait-for-${this.cluster.name}`;
    this.timeout = props.timeout ?? Duration.minutes(15);
    const image = props.image ?? IMAGES.kubectl;
    const seconds = this.timeout.toSeconds();

    for (const db of this.databases) {
      if (db.cluster !== this.cluster) {
        throw new Error(`wait job '${this.name}': database '${db.pgName}' is on cluster '${db.cluster.name}', not '${this.cluster.name}'`);
      }
    }

    const labels = { ...COMMON_LABELS, ...selectorLabels('wait-for-postgres', this.name) };
    const metadata = { name: this.name, namespace: this.namespace, labels };

    new k8s.KubeServiceAccount(this, 'ServiceAccount', { metadata, automountServiceAccountToken: true });
    new k8s.KubeRole(this, 'Role', {
      metadata,
      rules: [{
        apiGroups: ['postgresql.cnpg.io'],
        resources: this.databases.length > 0 ? ['clusters', 'databases'] : ['clusters'],
        verbs: ['get', 'list', 'watch'],
      }],
    });
    new k8s.KubeRoleBinding(this, 'RoleBinding', {
      metadata,
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: this.name },
      subjects: [{ kind: 'ServiceAccount', name: this.name, namespace: this.namespace }],
    });

    // kubectl's own error ("timed out waiting for the condition on databases/forgejo") becomes the termination message.
    const container = (name: string, args: string[]) => kubectlContainer(name, image, args);
    const clusterWait = container('cluster-ready', [
      'wait', `--namespace=${this.namespace}`, '--for=condition=Ready', `--timeout=${seconds}s`,
      `clusters.postgresql.cnpg.io/${this.cluster.name}`,
    ]);
    const databaseWait = this.databases.length > 0 ? container('databases-applied', [
      'wait', `--namespace=${this.namespace}`, '--for=jsonpath={.status.applied}=true', `--timeout=${seconds}s`,
      ...this.databases.map((d) => `databases.postgresql.cnpg.io/${d.name}`),
    ]) : undefined;

    this.job = new k8s.KubeJob(this, 'Resource', {
      metadata,
      spec: {
        // A kubectl wait that timed out will time out again; retries only hide the message.
        backoffLimit: 1,
        activeDeadlineSeconds: seconds + 60,
        template: {
          metadata: { labels },
          spec: {
            serviceAccountName: this.name,
            restartPolicy: 'Never',
            securityContext: restrictedPodSecurityContext(KUBECTL_UID),
            ...(databaseWait ? { initContainers: [clusterWait], containers: [databaseWait] } : { containers: [clusterWait] }),
            volumes: [{ name: 'tmp', emptyDir: { sizeLimit: k8s.Quantity.fromString('16Mi') } }],
          },
        },
      },
    });
    this.node.addDependency(this.cluster, ...this.databases);
  }

  /**
   * The Cluster phases in which CNPG has given up on the cluster, so the Job would wait out its deadline for nothing
   * (cloudnative-pg v1.30.0 `api/v1/cluster_types.go`): `PhaseUnrecoverable` (e.g. its recovery Job failed:
   * `internal/controller/cluster_controller.go`, "Instance creation failed for the following jobs"),
   * `PhaseDefinitionInvalid` and `PhaseImageCatalogError`. The plugin phases (`PhaseUnknownPlugin`, `PhaseFailurePlugin`)
   * are not here: CNPG requeues them, and right after the plugin step they clear once it registers the plugin.
   */
  public get failWhen(): { resource: string; jsonPath: string; values: string[] }[] {
    return [{
      resource: `clusters.postgresql.cnpg.io/${this.cluster.name}`,
      jsonPath: '{.status.phase}',
      values: [
        'Cluster is unrecoverable and needs manual intervention',
        'Invalid cluster definition',
        'Cluster has incomplete or invalid image catalog',
      ],
    }];
  }

  /**
   * The objects the Job waits for, as `resource/name` with the JSONPath of their status message. A Cluster that
   * archives or recovers through the Barman Cloud plugin also shows why the plugin is stuck:
   *
   * - recovery (`bootstrap.recovery`): the plugin's restore reads the ObjectStore and its credentials, checks that the
   *   new server name's WAL archive is empty (`barman-cloud-check-wal-archive`), then looks for the backup
   *   (plugin-barman-cloud v0.14.0 `internal/cnpgi/restore/restore.go`); any failure leaves the Cluster short of Ready
   *   with CNPG's `status.phaseReason`;
   * - WAL archiving: each WAL is archived by the instance's plugin sidecar, and the first one after `initdb` (the
   *   `.check-empty-wal-archive` marker) only when the archive under the server name is empty
   *   (`internal/cnpgi/common/wal.go` `Archive`, `check.go`); an unreachable store, refused credentials or a non-empty
   *   archive fail every WAL, which CNPG reports in the condition `ContinuousArchiving` (v1.30.0
   *   `pkg/management/postgres/webserver/local.go`). That does not keep the Cluster from becoming Ready: the Job passes,
   *   and `kubectl get cluster` shows the condition.
   */
  public get watched(): { resource: string; messagePath: string }[] {
    const cluster = `clusters.postgresql.cnpg.io/${this.cluster.name}`;
    const viaPlugin = this.cluster.walArchive !== undefined || this.cluster.restoreFrom !== undefined;
    return [
      { resource: cluster, messagePath: '{.status.phase}' },
      ...(viaPlugin ? [{ resource: cluster, messagePath: '{.status.phaseReason}' }] : []),
      ...(this.cluster.walArchive !== undefined
        ? [{ resource: cluster, messagePath: '{.status.conditions[?(@.type=="ContinuousArchiving")].message}' }] : []),
      ...this.databases.map((d) => ({ resource: `databases.postgresql.cnpg.io/${d.name}`, messagePath: '{.status.message}' })),
    ];
  }

  /** The Job's pod, for network policies. */
  public get peer(): PodPeer {
    return podPeer(this.namespace, this.name, selectorLabels('wait-for-postgres', this.name));
  }

  /** The Job only reads the Cluster and Databases through the Kubernetes API. */
  public get networkFlows(): NetworkFlow[] {
    return [{ from: this.peer, to: KUBERNETES_API, ports: [], reason: `WaitForPostgresJob.cluster: reads Cluster ${this.cluster.namespace}/${this.cluster.name}` }];
  }
}
