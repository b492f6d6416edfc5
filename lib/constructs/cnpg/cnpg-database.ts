import { Construct } from 'constructs';
import { Database, DatabaseSpecDatabaseReclaimPolicy } from '../../../imports/cnpg-database-postgresql.cnpg.io';
import { kubernetesNameForPg } from '../../shared/names';
import { CnpgCluster } from './cnpg-cluster';

/** Properties for `CnpgDatabase`. */
export interface CnpgDatabaseProps {
  /** The cluster that hosts the database. */
  readonly cluster: CnpgCluster;
  /** PostgreSQL name of the database, e.g. `temporal_visibility`. */
  readonly pgName: string;
  /** Role that owns the database; must exist on `cluster`. */
  readonly owner: string;
  /**
   * What CNPG does with the database when the CR is deleted.
   * @default 'retain'
   */
  readonly reclaimPolicy?: 'retain' | 'delete';
}

/**
 * A CNPG `Database` CR. Its Kubernetes name is derived from the PostgreSQL name (`temporal_visibility` →
 * `temporal-visibility`) and it lives in its cluster's namespace, as CNPG requires.
 *
 * CNPG reports the outcome in `status.applied` (true once `CREATE DATABASE` ran) and `status.message`;
 * the CRD has no conditions. Waits and health checks read exactly those fields.
 *
 * @see https://cloudnative-pg.io/documentation/1.30/declarative_database_management/
 */
export class CnpgDatabase extends Construct {
  public readonly cluster: CnpgCluster;
  public readonly pgName: string;
  /** Kubernetes name of the CR. */
  public readonly name: string;
  public readonly namespace: string;
  public readonly owner: string;
  public readonly reclaimPolicy: 'retain' | 'delete';
  public readonly resource: Database;

  constructor(scope: Construct, id: string, props: CnpgDatabaseProps) {
    super(scope, id);
    this.cluster = props.cluster;
    this.pgName = props.pgName;
    this.name = kubernetesNameForPg(props.pgName);
    this.namespace = props.cluster.namespace;
    this.owner = props.owner;
    this.reclaimPolicy = props.reclaimPolicy ?? 'retain';

    if (!this.cluster.hasRole(this.owner)) {
      throw new Error(`${this.node.path}: 'owner' ('${this.owner}') is not a role of cluster '${this.cluster.name}' ` +
        `(roles: ${this.cluster.roles.join(', ')}). CNPG never creates the owner, so the database would never be applied. ` +
        `Add '${this.owner}' to the cluster's 'managedRoles', or choose one of its roles.`);
    }

    this.resource = new Database(this, 'Resource', {
      metadata: { name: this.name, namespace: this.namespace },
      spec: {
        name: this.pgName,
        owner: this.owner,
        cluster: { name: this.cluster.name },
        databaseReclaimPolicy: this.reclaimPolicy === 'delete'
          ? DatabaseSpecDatabaseReclaimPolicy.DELETE
          : DatabaseSpecDatabaseReclaimPolicy.RETAIN,
      },
    });
    // CNPG rejects a Database whose cluster does not exist yet, so the Cluster is applied first.
    this.node.addDependency(this.cluster);
  }
}
