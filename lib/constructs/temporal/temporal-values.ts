/**
 * Helm values of the Temporal chart, written for one chart version, and the guard that keeps Temporal on
 * PostgreSQL. Pure functions, no constructs.
 *
 * Chart 1.x has no subcharts: a top-level `cassandra`, `elasticsearch`, `mysql`, `postgresql`, `prometheus`
 * or `grafana` key (even `{enabled: false}`) fails rendering, and the 0.x `server.config.persistence.default`
 * layout is refused. Stores live under `server.config.persistence.datastores.<name>.sql`. A values file
 * written for another chart version can silently fall back to the chart's Cassandra default, so the values
 * are pinned to `TEMPORAL_VALUES_CHART_VERSION`.
 *
 * @see https://github.com/temporalio/helm-charts/blob/temporal-1.6.0/charts/temporal/templates/_deprecations.tpl
 */
import { TEMPORAL_SQL_PLUGINS, TEMPORAL_VALUES_CHART_VERSION, TemporalSqlPlugin } from '../../shared/temporal-chart';

/** The Temporal chart repository and chart. */
export const TEMPORAL_CHART_REPO = 'https://go.temporal.io/helm-charts';
export const TEMPORAL_CHART_NAME = 'temporal';
// The chart version and the SQL plugins are config vocabulary (lib/config/temporal.ts).
export { TEMPORAL_VALUES_CHART_VERSION } from '../../shared/temporal-chart';
export type { TemporalSqlPlugin } from '../../shared/temporal-chart';
const POSTGRES_PLUGINS: readonly string[] = TEMPORAL_SQL_PLUGINS;

/** Top-level keys chart 1.x refuses; each would also mean a non-PostgreSQL store or a removed subchart. */
export const TEMPORAL_FORBIDDEN_TOP_LEVEL_KEYS: readonly string[] = ['cassandra', 'elasticsearch', 'grafana', 'mysql', 'postgresql', 'prometheus'];

/** Names of the two datastores the values define. */
export const TEMPORAL_DEFAULT_STORE = 'default';
export const TEMPORAL_VISIBILITY_STORE = 'visibility';

/** One PostgreSQL store of Temporal. */
export interface TemporalPostgresStore {
  /** PostgreSQL database name, e.g. `temporal_visibility`. */
  readonly databaseName: string;
  /** `host:port` of the primary, e.g. `ddb-cluster-rw.ddb.svc:5432`. */
  readonly connectAddr: string;
  /** Login role. */
  readonly user: string;
  /** Secret in Temporal's namespace holding the role's password. */
  readonly existingSecret: string;
  /** Key of the password in `existingSecret`. */
  readonly secretKey: string;
}

/** Inputs of `temporalValues`. */
export interface TemporalValuesOptions {
  readonly defaultStore: TemporalPostgresStore;
  readonly visibilityStore: TemporalPostgresStore;
  readonly sqlPlugin: TemporalSqlPlugin;
  /** Shards of the history service; can never change after the first install. */
  readonly numHistoryShards: number;
  /** Values deep-merged over the generated ones (objects merge, everything else replaces). */
  readonly valuesOverride?: Readonly<Record<string, unknown>>;
}

type Json = Record<string, unknown>;

/** The values file for chart `TEMPORAL_VALUES_CHART_VERSION`, with `valuesOverride` merged in, keys sorted. */
export function temporalValues(options: TemporalValuesOptions): Json {
  const store = (s: TemporalPostgresStore): Json => ({
    sql: {
      pluginName: options.sqlPlugin,
      driverName: options.sqlPlugin,
      databaseName: s.databaseName,
      connectAddr: s.connectAddr,
      connectProtocol: 'tcp',
      user: s.user,
      existingSecret: s.existingSecret,
      secretKey: s.secretKey,
      // CNPG creates the database (a Database CR of data-schemas); the chart's schema Job only manages tables.
      createDatabase: false,
      manageSchema: true,
    },
  });
  const generated: Json = {
    server: {
      config: {
        persistence: {
          defaultStore: TEMPORAL_DEFAULT_STORE,
          visibilityStore: TEMPORAL_VISIBILITY_STORE,
          numHistoryShards: options.numHistoryShards,
          datastores: {
            [TEMPORAL_DEFAULT_STORE]: store(options.defaultStore),
            [TEMPORAL_VISIBILITY_STORE]: store(options.visibilityStore),
          },
        },
      },
    },
    // The shims exist for 1.29 images; values.yaml says to turn them off on Temporal 1.30 or newer.
    shims: { dockerize: false, elasticsearchTool: false },
  };
  return sortKeys(deepMerge(generated, options.valuesOverride ?? {})) as Json;
}

/**
 * Every reason `values` would not run Temporal on PostgreSQL for both stores, or would not render on chart
 * `TEMPORAL_VALUES_CHART_VERSION`. Empty when the values are fine.
 */
export function temporalValuesProblems(values: Readonly<Json>): string[] {
  const problems: string[] = [];
  const fix = 'Remove it from the values override.';
  for (const key of TEMPORAL_FORBIDDEN_TOP_LEVEL_KEYS) {
    if (Object.prototype.hasOwnProperty.call(values, key)) {
      problems.push(`top-level key '${key}' is set (to ${JSON.stringify(values[key])}). Temporal chart ${TEMPORAL_VALUES_CHART_VERSION} has no ` +
        `subcharts and refuses any of ${TEMPORAL_FORBIDDEN_TOP_LEVEL_KEYS.join(', ')}, even {enabled: false}; ` +
        `Temporal runs on PostgreSQL only. ${fix}`);
    }
  }
  const persistence = at(values, ['server', 'config', 'persistence']);
  for (const legacy of ['default', 'visibility']) {
    if (isObject(persistence) && Object.prototype.hasOwnProperty.call(persistence, legacy)) {
      problems.push(`server.config.persistence.${legacy} is the 0.x layout, which chart ${TEMPORAL_VALUES_CHART_VERSION} refuses. ` +
        `Configure stores under server.config.persistence.datastores.<name>.sql. ${fix}`);
    }
  }
  const schema = at(values, ['schema']);
  for (const legacy of ['createDatabase', 'setup', 'update']) {
    if (isObject(schema) && Object.prototype.hasOwnProperty.call(schema, legacy)) {
      problems.push(`schema.${legacy} was removed in chart 1.x and fails rendering; the generated values set createDatabase and ` +
        `manageSchema on each datastore. ${fix}`);
    }
  }
  const datastores = isObject(persistence) ? persistence.datastores : undefined;
  if (isObject(datastores)) {
    for (const [name, ds] of Object.entries(datastores).sort(([a], [b]) => (a < b ? -1 : 1))) {
      if (!isObject(ds)) continue;
      for (const other of ['cassandra', 'elasticsearch']) {
        if (Object.prototype.hasOwnProperty.call(ds, other)) {
          problems.push(`server.config.persistence.datastores.${name} sets '${other}', but Temporal runs on PostgreSQL only. ${fix}`);
        }
      }
      const sql = ds.sql;
      if (!isObject(sql)) continue;
      for (const field of ['pluginName', 'driverName']) {
        const v = sql[field];
        if (!POSTGRES_PLUGINS.includes(String(v))) {
          problems.push(`server.config.persistence.datastores.${name}.sql.${field} is ${JSON.stringify(v)}, but Temporal runs on ` +
            `PostgreSQL only. Use one of ${POSTGRES_PLUGINS.map((p) => `'${p}'`).join(', ')} as the SQL plugin.`);
        }
      }
    }
  }
  const storeRefs: [string, string][] = [['defaultStore', TEMPORAL_DEFAULT_STORE], ['visibilityStore', TEMPORAL_VISIBILITY_STORE]];
  for (const [ref, expected] of storeRefs) {
    const name = isObject(persistence) ? persistence[ref] : undefined;
    const ds = isObject(datastores) && typeof name === 'string' ? datastores[name] : undefined;
    if (name !== expected || !isObject(ds) || !isObject(ds.sql)) {
      const what = ref === 'visibilityStore' ? 'visibility' : 'the main store';
      problems.push(`server.config.persistence.${ref} is ${JSON.stringify(name)}, which is not the PostgreSQL datastore '${expected}'; ` +
        `${what} must stay on PostgreSQL (a datastore with sql settings). ${fix}`);
    }
  }
  if (isObject(persistence) && persistence.secondaryVisibilityStore !== undefined) {
    problems.push('server.config.persistence.secondaryVisibilityStore is set; a second visibility store is not PostgreSQL-only by ' +
      `construction and dual visibility is not part of the homelab. ${fix}`);
  }
  return problems;
}

function isObject(v: unknown): v is Json {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function at(v: unknown, path: readonly string[]): unknown {
  let cur = v;
  for (const p of path) cur = isObject(cur) ? cur[p] : undefined;
  return cur;
}

/** Merges `over` into `base`: objects merge key by key, anything else in `over` replaces. */
export function deepMerge(base: unknown, over: unknown): unknown {
  if (!isObject(base) || !isObject(over)) return over;
  const out: Json = { ...base };
  for (const [k, v] of Object.entries(over)) out[k] = k in out ? deepMerge(out[k], v) : v;
  return out;
}

/** Copy of `v` with every object's keys sorted, for deterministic files. */
export function sortKeys(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(sortKeys);
  if (!isObject(v)) return v;
  return Object.fromEntries(Object.keys(v).sort().map((k) => [k, sortKeys(v[k])]));
}
