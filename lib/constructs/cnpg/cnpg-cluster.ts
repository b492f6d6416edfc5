import { Construct } from 'constructs';
import { Cluster, ClusterSpecManagedRolesEnsure, ClusterSpecResourcesLimits, ClusterSpecResourcesRequests } from '../../../imports/cnpg-cluster-postgresql.cnpg.io';
import { BARMAN_CLOUD_PLUGIN, barmanBackupIdProblem, recoveryTargetTimeProblem } from '../../shared/backup';
import { CNPG_RESOURCE_DEFAULTS } from '../../shared/cnpg-defaults';
import { IMAGES } from '../../shared/pins';
import { BarmanObjectStore } from './barman-object-store';
import { INetworkWorkload, KUBERNETES_API, NetworkFlow, NetworkPort, podPeer, PodPeer, urlPeer, urlPort } from '../../shared/network';

/**
 * The label CNPG puts on every pod of a cluster, with the cluster's name (cloudnative-pg v1.30.0
 * pkg/utils/labels_annotations.go `ClusterLabelName`).
 */
export const CNPG_CLUSTER_LABEL = 'cnpg.io/cluster';
/** The label CNPG puts on instance pods (not Jobs): `cnpg.io/podRole: instance` (same file, `PodRoleLabelName`). */
export const CNPG_INSTANCE_POD_SELECTOR: Readonly<Record<string, string>> = { 'cnpg.io/podRole': 'instance' };
/** The ports of a CNPG instance pod (pkg/specs/pods.go: `postgresql`, `status`, `metrics`). */
export const CNPG_INSTANCE_PORTS = {
  postgres: { port: 5432, name: 'postgresql' },
  status: { port: 8000, name: 'status' },
  metrics: { port: 9187, name: 'metrics' },
} as const satisfies Record<string, NetworkPort>;

/** Where a cluster archives its WAL and base backups through the Barman Cloud plugin (`spec.plugins`). */
export interface CnpgWalArchive {
  /** The object store written to. */
  readonly objectStore: BarmanObjectStore;
  /**
   * Folder of this cluster's archive in the object store (the plugin's `serverName` parameter). The plugin refuses to
   * archive into a folder that already holds WAL, so a cluster restored from server name X archives under a new one.
   * @default - the cluster name (the plugin's default)
   */
  readonly serverName?: string;
  /**
   * Whether the plugin archives WAL (`isWALArchiver`); without it only base backups are taken, and no point in time
   * between them can be recovered.
   * @default true
   */
  readonly walArchiving?: boolean;
}

/** The backup a cluster is bootstrapped from (`bootstrap.recovery` and its `externalClusters[]` entry). */
export interface CnpgRestoreSource {
  /** The object store read from. */
  readonly objectStore: BarmanObjectStore;
  /** Server name whose backups and WAL are read: the folder the cluster that took them archived under. */
  readonly serverName: string;
  /**
   * Point in time to recover to (`recoveryTarget.targetTime`), RFC 3339 with its zone.
   * @default - the end of the archived WAL
   */
  readonly targetTime?: string;
  /**
   * Base backup to start from (`recoveryTarget.backupID`), e.g. `20260115T030000`.
   * @default - chosen by CNPG: the latest before `targetTime`, or the latest
   */
  readonly backupId?: string;
}

/** Properties for `CnpgCluster`. */
export interface CnpgClusterProps {
  /** Name of the `Cluster`. */
  readonly name: string;
  /** Namespace of the `Cluster`. */
  readonly namespace: string;
  /**
   * Number of PostgreSQL instances.
   * @default 1
   */
  readonly instances?: number;
  /**
   * Database created by `initdb`.
   * @default 'app'
   */
  readonly initdbDatabase?: string;
  /**
   * Owner role created by `initdb`.
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
   * Tolerate control-plane taints and prefer (never require) one instance per node.
   * @default true
   */
  readonly controlPlaneFriendly?: boolean;
  /**
   * Login roles CNPG manages, each with its password in the Secret `<cluster>-<role>`.
   * @default []
   */
  readonly managedRoles?: readonly string[];
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
   * Memory limit of each instance (also sizes PostgreSQL's shared memory expectations: keep it generous).
   * @default '1Gi'
   */
  readonly memoryLimit?: string;
  /**
   * PostgreSQL operand image.
   * @default - the pinned image of `lib/shared/pins.ts`
   */
  readonly imageName?: string;
  /**
   * Archive WAL and base backups through the Barman Cloud plugin.
   * @default - no archiving
   */
  readonly walArchive?: CnpgWalArchive;
  /**
   * Bootstrap the cluster from a backup instead of `initdb`; `initdbDatabase` and `initdbOwner` then name the
   * application database and owner recovered from it (`bootstrap.recovery.database`, `owner`).
   * @default - a new, empty cluster (`initdb`)
   */
  readonly restoreFrom?: CnpgRestoreSource;
}

export { CNPG_RESOURCE_DEFAULTS };

/** Taints a control-plane node carries; tolerating them lets instances run on a control-plane-only cluster. */
const CONTROL_PLANE_TAINTS = ['node-role.kubernetes.io/control-plane', 'node-role.kubernetes.io/master'];

/**
 * A CloudNativePG `Cluster`. Exposes the names other constructs need (services, the generated app Secret,
 * roles), so nobody retypes them.
 *
 * @see https://cloudnative-pg.io/documentation/1.30/bootstrap/
 */
export class CnpgCluster extends Construct implements INetworkWorkload {
  public readonly name: string;
  public readonly namespace: string;
  public readonly instances: number;
  public readonly initdbDatabase: string;
  public readonly initdbOwner: string;
  public readonly storageSize: string;
  public readonly controlPlaneFriendly: boolean;
  public readonly managedRoles: readonly string[];
  public readonly cpuRequest: string;
  public readonly memoryRequest: string;
  public readonly memoryLimit: string;
  public readonly walArchive?: CnpgWalArchive;
  public readonly restoreFrom?: CnpgRestoreSource;
  /** The server name the cluster archives under, when it archives. */
  public readonly archiveServerName?: string;
  /** The `Cluster` object. */
  public readonly resource: Cluster;

  constructor(scope: Construct, id: string, props: CnpgClusterProps) {
    super(scope, id);
    this.name = props.name;
    this.namespace = props.namespace;
    this.instances = props.instances ?? 1;
    this.initdbDatabase = props.initdbDatabase ?? 'app';
    this.initdbOwner = props.initdbOwner ?? this.initdbDatabase;
    this.storageSize = props.storageSize ?? '10Gi';
    this.controlPlaneFriendly = props.controlPlaneFriendly ?? true;
    this.managedRoles = [...(props.managedRoles ?? [])].sort();
    this.cpuRequest = props.cpuRequest ?? CNPG_RESOURCE_DEFAULTS.cpuRequest;
    this.memoryRequest = props.memoryRequest ?? CNPG_RESOURCE_DEFAULTS.memoryRequest;
    this.memoryLimit = props.memoryLimit ?? CNPG_RESOURCE_DEFAULTS.memoryLimit;

    if (!Number.isInteger(this.instances) || this.instances < 1) {
      throw new Error(`${this.node.path}: 'instances' must be an integer of at least 1, got ${this.instances}.`);
    }
    if (this.managedRoles.includes(this.initdbOwner)) {
      throw new Error(`${this.node.path}: role '${this.initdbOwner}' is both 'initdbOwner' and one of 'managedRoles'; ` +
        'CNPG creates the initdb owner itself. Remove it from \'managedRoles\'.');
    }

    this.walArchive = props.walArchive;
    this.restoreFrom = props.restoreFrom;
    this.archiveServerName = props.walArchive ? props.walArchive.serverName ?? this.name : undefined;
    const restore = props.restoreFrom;
    for (const store of [props.walArchive?.objectStore, restore?.objectStore]) {
      if (store && store.namespace !== this.namespace) {
        throw new Error(`${this.node.path}: ObjectStore '${store.name}' is in namespace '${store.namespace}', the cluster in '${this.namespace}'; ` +
          'the plugin looks the ObjectStore up in the cluster\'s namespace. Define it there.');
      }
    }
    if (restore) {
      if (this.archiveServerName === restore.serverName) {
        throw new Error(`${this.node.path}: the cluster restores from server name '${restore.serverName}' and archives under it too; ` +
          'the Barman Cloud plugin refuses to archive into a WAL archive that is not empty. Set \'walArchive.serverName\' to a new name.');
      }
      const time = restore.targetTime === undefined ? undefined : recoveryTargetTimeProblem(restore.targetTime);
      if (time !== undefined) throw new Error(`${this.node.path}: 'restoreFrom.targetTime' ${time}`);
      const id = restore.backupId === undefined ? undefined : barmanBackupIdProblem(restore.backupId);
      if (id !== undefined) throw new Error(`${this.node.path}: 'restoreFrom.backupId' ${id}`);
    }
    const recoveryTarget = restore && (restore.targetTime !== undefined || restore.backupId !== undefined)
      ? { targetTime: restore.targetTime, backupId: restore.backupId } : undefined;

    this.resource = new Cluster(this, 'Resource', {
      metadata: { name: this.name, namespace: this.namespace },
      spec: {
        instances: this.instances,
        imageName: props.imageName ?? IMAGES.postgres,
        bootstrap: restore
          ? { recovery: { source: this.recoverySourceName!, database: this.initdbDatabase, owner: this.initdbOwner, recoveryTarget } }
          : { initdb: { database: this.initdbDatabase, owner: this.initdbOwner } },
        ...(restore ? {
          externalClusters: [{
            name: this.recoverySourceName!,
            plugin: {
              name: BARMAN_CLOUD_PLUGIN,
              // The CRD defaults of a plugin entry, written out: kube-apiserver 1.30 rewrites a Cluster on a re-apply
              // now and then when a defaulted field inside this atomic list is left out (seen by test/cluster).
              enabled: true,
              isWalArchiver: false,
              parameters: { barmanObjectName: restore.objectStore.name, serverName: restore.serverName },
            },
          }],
        } : {}),
        ...(props.walArchive ? {
          plugins: [{
            name: BARMAN_CLOUD_PLUGIN,
            // the CRD's default, written out (see externalClusters above)
            enabled: true,
            isWalArchiver: props.walArchive.walArchiving ?? true,
            parameters: { barmanObjectName: props.walArchive.objectStore.name, serverName: this.archiveServerName! },
          }],
        } : {}),
        storage: { size: this.storageSize, storageClass: props.storageClass },
        resources: {
          requests: {
            cpu: ClusterSpecResourcesRequests.fromString(this.cpuRequest),
            memory: ClusterSpecResourcesRequests.fromString(this.memoryRequest),
          },
          limits: { memory: ClusterSpecResourcesLimits.fromString(this.memoryLimit) },
        },
        ...(this.controlPlaneFriendly ? {
          affinity: {
            enablePodAntiAffinity: true,
            // preferred, not required: with 3 instances on a partly schedulable 3-node cluster, required
            // anti-affinity leaves an instance Pending forever and the Cluster never becomes Ready.
            podAntiAffinityType: 'preferred',
            topologyKey: 'kubernetes.io/hostname',
            tolerations: CONTROL_PLANE_TAINTS.map((key) => ({ key, operator: 'Exists', effect: 'NoSchedule' })),
          },
        } : {}),
        ...(this.managedRoles.length > 0 ? {
          managed: {
            roles: this.managedRoles.map((role) => ({
              name: role,
              ensure: ClusterSpecManagedRolesEnsure.PRESENT,
              login: true,
              passwordSecret: { name: this.roleSecretName(role) },
            })),
          },
        } : {}),
      },
    });
    // The plugin reads the ObjectStore when it reconciles the Cluster: it is applied first.
    for (const store of new Set([props.walArchive?.objectStore, restore?.objectStore])) if (store) this.node.addDependency(store);
  }

  /**
   * Name of the `externalClusters[]` entry a restore reads (`bootstrap.recovery.source`): the server name it reads,
   * as CNPG's in-tree recovery names it.
   */
  public get recoverySourceName(): string | undefined {
    return this.restoreFrom?.serverName;
  }

  /** The read-write Service CNPG defines for the primary. */
  public get readWriteServiceName(): string {
    return `${this.name}-rw`;
  }

  /** The cluster's pods, for network policies: every pod CNPG labels with the cluster's name. */
  public get peer(): PodPeer {
    // The cluster label alone: it also selects the cluster's bootstrap Jobs (initdb, join, full recovery in v1.30.0),
    // which need the same connections (a join Job copies the primary on 5432; a recovery Job reads the object store).
    return podPeer(this.namespace, this.name, { [CNPG_CLUSTER_LABEL]: this.name });
  }

  /** PostgreSQL's port on every instance (the `-rw`, `-ro` and `-r` Services target it). */
  public get postgresPort(): NetworkPort {
    return CNPG_INSTANCE_PORTS.postgres;
  }

  /**
   * The connections the cluster's pods open: to each other (streaming replication and the instance status port), to the
   * Kubernetes API (the instance manager reconciles its pod from the Cluster), and to the object stores of
   * `walArchive` and `restoreFrom` (the Barman Cloud plugin's sidecar in each instance pod reads and writes there).
   */
  public get networkFlows(): NetworkFlow[] {
    const flows: NetworkFlow[] = [
      // CNPG v1.30.0 docs/src/cncf-projects/cilium.md, "Allowing access between cluster Pods": 8000 and 5432.
      {
        from: this.peer, to: this.peer, ports: [this.postgresPort, CNPG_INSTANCE_PORTS.status],
        reason: `CnpgCluster.instances: ${this.instances}, replication and status between them`,
      },
      { from: this.peer, to: KUBERNETES_API, ports: [], reason: 'the CNPG instance manager watches its Cluster and pod' },
    ];
    for (const [prop, store] of [['walArchive', this.walArchive?.objectStore], ['restoreFrom', this.restoreFrom?.objectStore]] as const) {
      if (store) flows.push({ from: this.peer, to: urlPeer(store.endpointUrl, `object store of ${prop}`), ports: [urlPort(store.endpointUrl)], reason: `CnpgCluster.${prop}: ObjectStore ${store.name}` });
    }
    return flows;
  }

  /** In-cluster host of the primary. */
  public get readWriteHost(): string {
    return `${this.readWriteServiceName}.${this.namespace}.svc`;
  }

  /** The Secret CNPG generates with the `initdb` owner's credentials (keys `username`, `password`, ...). */
  public get appSecretName(): string {
    return `${this.name}-app`;
  }

  /** The `kubernetes.io/basic-auth` Secret a managed role's password is read from. */
  public roleSecretName(role: string): string {
    return `${this.name}-${role.replace(/_/g, '-')}`;
  }

  /** Whether `role` exists on the cluster once it is ready. */
  public hasRole(role: string): boolean {
    return role === this.initdbOwner || this.managedRoles.includes(role);
  }

  /** All roles, initdb owner first. */
  public get roles(): readonly string[] {
    return [this.initdbOwner, ...this.managedRoles];
  }
}
