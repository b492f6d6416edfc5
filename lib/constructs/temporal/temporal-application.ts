import { Construct } from 'constructs';
import { CnpgDatabase } from '../cnpg/cnpg-database';
import { ARGOCD_DIST } from '../../shared/dist-layout';
import { HomelabApplication } from '../argocd/homelab-application';
import { HomelabProject } from '../argocd/homelab-project';
import { HomelabRepo } from '../argocd/homelab-repo';
import { ManagedNamespaceMetadata } from '../argocd/sync-policy';
import { SYNC_WAVES, SyncWave } from '../../shared/sync-waves';
import {
  TEMPORAL_CHART_NAME, TEMPORAL_CHART_REPO, TEMPORAL_VALUES_CHART_VERSION, TemporalPostgresStore, TemporalSqlPlugin,
  temporalValues, temporalValuesProblems,
} from './temporal-values';

/** Properties for `TemporalApplication`. */
export interface TemporalApplicationProps {
  readonly project: HomelabProject;
  readonly repo: HomelabRepo;
  /** The CNPG Database of the main store (`temporal`). */
  readonly defaultDatabase: CnpgDatabase;
  /** The CNPG Database of the visibility store (`temporal_visibility`). */
  readonly visibilityDatabase: CnpgDatabase;
  /**
   * Name of the Application and Helm release.
   * @default 'temporal'
   */
  readonly name?: string;
  /**
   * Namespace Temporal runs in; Argo CD creates it.
   * @default 'temporal'
   */
  readonly namespace?: string;
  /**
   * Sync wave.
   * @default SYNC_WAVES.APPS
   */
  readonly syncWave?: SyncWave;
  /**
   * Chart version; must be the one the values are written for.
   * @default TEMPORAL_VALUES_CHART_VERSION ('1.6.0')
   */
  readonly chartVersion?: string;
  /**
   * Role Temporal logs in as; must own both databases.
   * @default - the owner of `defaultDatabase`
   */
  readonly user?: string;
  /**
   * Secret in `namespace` with the role's password under key `password` (a copy of the CNPG role Secret,
   * which lives in the cluster's namespace, delivered through SOPS).
   * @default - the CNPG role Secret's name, `<cluster>-<user>`
   */
  readonly passwordSecretName?: string;
  /**
   * SQL plugin (and driver) of both stores.
   * @default 'postgres12_pgx'
   */
  readonly sqlPlugin?: TemporalSqlPlugin;
  /**
   * History shards; can never change after the first install.
   * @default 512
   */
  readonly numHistoryShards?: number;
  /**
   * Values deep-merged over the generated ones; rejected when they move a store off PostgreSQL.
   * @default {}
   */
  readonly valuesOverride?: Readonly<Record<string, unknown>>;
  /**
   * Applications that must be healthy first (the one delivering the databases, when Argo CD delivers them).
   * @default []
   */
  readonly dependsOn?: readonly HomelabApplication[];
  /**
   * Metadata of the namespace Argo CD creates.
   * @default - none
   */
  readonly managedNamespaceMetadata?: ManagedNamespaceMetadata;
}

/** One broken Temporal rule: the prop it belongs to (for a database's owner, with the database) and the message. */
export interface TemporalProblem {
  readonly prop: 'chartVersion' | 'numHistoryShards' | 'owner';
  /** For `owner`: the PostgreSQL name of the database whose owner is wrong. */
  readonly pgName?: string;
  readonly message: string;
}

/**
 * The rules of Temporal's settings that need no values: the chart version the values are written for, a
 * positive shard count, and a login role that owns both databases. `TemporalApplication` throws the first;
 * the config check reports them all.
 */
export function temporalSettingProblems(s: {
  readonly chartVersion: string;
  readonly numHistoryShards: number;
  readonly user: string;
  readonly databases: readonly { readonly pgName: string; readonly owner: string }[];
}): TemporalProblem[] {
  const out: TemporalProblem[] = [];
  if (s.chartVersion !== TEMPORAL_VALUES_CHART_VERSION) {
    out.push({
      prop: 'chartVersion',
      message: `chart version '${s.chartVersion}' differs from '${TEMPORAL_VALUES_CHART_VERSION}', the version the ` +
        'generated values are written for. Chart schema drift silently reverts persistence to Cassandra. Review ' +
        'lib/constructs/temporal/temporal-values.ts against the new chart and update TEMPORAL_VALUES_CHART_VERSION, or set ' +
        `the chart version back to '${TEMPORAL_VALUES_CHART_VERSION}'.`,
    });
  }
  if (!Number.isInteger(s.numHistoryShards) || s.numHistoryShards < 1) {
    out.push({ prop: 'numHistoryShards', message: `numHistoryShards must be a positive integer, got ${s.numHistoryShards}.` });
  }
  for (const db of s.databases) {
    if (db.owner !== s.user) {
      out.push({
        prop: 'owner',
        pgName: db.pgName,
        message: `database '${db.pgName}' is owned by '${db.owner}', not by '${s.user}', the role Temporal logs in as; ` +
          `its schema Job could not create tables. Make '${s.user}' its owner.`,
      });
    }
  }
  return out;
}

/** Port of the CNPG read-write Service. */
const POSTGRES_PORT = 5432;

/**
 * Temporal from its Helm chart, on PostgreSQL only: the main store and visibility on the CNPG databases it
 * is given. The values are generated (`dist/values/temporal.yaml`) for chart `TEMPORAL_VALUES_CHART_VERSION`
 * and read through the `$values` ref. Synth refuses a chart version other than the one the values were
 * written for, and any override that enables Cassandra, Elasticsearch or MySQL or moves visibility off
 * PostgreSQL.
 *
 * @see https://github.com/temporalio/helm-charts/tree/temporal-1.6.0/charts/temporal
 */
export class TemporalApplication extends HomelabApplication {
  /** The generated values, keys sorted. */
  public readonly values: Readonly<Record<string, unknown>>;
  /** Path of the values file relative to `dist/`. */
  public readonly valuesFile: string;
  public readonly chartVersion: string;
  public readonly user: string;
  public readonly passwordSecretName: string;
  public readonly sqlPlugin: TemporalSqlPlugin;
  public readonly numHistoryShards: number;
  public readonly defaultDatabase: CnpgDatabase;
  public readonly visibilityDatabase: CnpgDatabase;

  constructor(scope: Construct, id: string, props: TemporalApplicationProps) {
    const name = props.name ?? 'temporal';
    const chartVersion = props.chartVersion ?? TEMPORAL_VALUES_CHART_VERSION;
    const user = props.user ?? props.defaultDatabase.owner;
    const passwordSecretName = props.passwordSecretName ?? props.defaultDatabase.cluster.roleSecretName(user);
    const sqlPlugin = props.sqlPlugin ?? 'postgres12_pgx';
    const numHistoryShards = props.numHistoryShards ?? 512;

    const first = temporalSettingProblems({ chartVersion, numHistoryShards, user, databases: [props.defaultDatabase, props.visibilityDatabase] })[0];
    if (first) throw new Error(`temporal: ${first.message}`);
    const store = (db: CnpgDatabase): TemporalPostgresStore => ({
      databaseName: db.pgName,
      connectAddr: `${db.cluster.readWriteHost}:${POSTGRES_PORT}`,
      user,
      existingSecret: passwordSecretName,
      secretKey: 'password',
    });
    const values = temporalValues({
      defaultStore: store(props.defaultDatabase),
      visibilityStore: store(props.visibilityDatabase),
      sqlPlugin,
      numHistoryShards,
      valuesOverride: props.valuesOverride,
    });
    const problems = temporalValuesProblems(values);
    if (problems.length > 0) {
      throw new Error(`temporal: the values would not run Temporal on PostgreSQL with chart ${TEMPORAL_VALUES_CHART_VERSION}:\n` +
        problems.map((p) => `  - ${p}`).join('\n'));
    }
    const valuesFile = `${ARGOCD_DIST.values}/${name}.yaml`;

    super(scope, id, {
      name,
      project: props.project,
      repo: props.repo,
      sources: [{
        kind: 'helm-chart',
        repoURL: TEMPORAL_CHART_REPO,
        chart: TEMPORAL_CHART_NAME,
        version: chartVersion,
        valueFiles: [props.repo.distFile(valuesFile)],
      }],
      namespace: props.namespace ?? 'temporal',
      syncWave: props.syncWave ?? SYNC_WAVES.APPS,
      syncOptions: ['CreateNamespace'],
      managedNamespaceMetadata: props.managedNamespaceMetadata,
      dependsOn: props.dependsOn,
    });
    this.values = values;
    this.valuesFile = valuesFile;
    this.chartVersion = chartVersion;
    this.user = user;
    this.passwordSecretName = passwordSecretName;
    this.sqlPlugin = sqlPlugin;
    this.numHistoryShards = numHistoryShards;
    this.defaultDatabase = props.defaultDatabase;
    this.visibilityDatabase = props.visibilityDatabase;
  }
}
