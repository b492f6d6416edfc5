import { deepMerge, sortKeys, TemporalValuesOptions, temporalValues, temporalValuesProblems } from '../../../lib/constructs/temporal/temporal-values';

const STORE = { connectAddr: 'ddb-cluster-rw.ddb.svc:5432', user: 'temporal', existingSecret: 'ddb-cluster-temporal', secretKey: 'password' };
const OPTIONS: TemporalValuesOptions = {
  defaultStore: { ...STORE, databaseName: 'temporal' },
  visibilityStore: { ...STORE, databaseName: 'temporal_visibility' },
  sqlPlugin: 'postgres12_pgx',
  numHistoryShards: 512,
};

test('values for chart 1.6.0: both stores on PostgreSQL through datastores.<name>.sql, no subchart keys', () => {
  const values = temporalValues(OPTIONS) as any;
  expect(Object.keys(values)).toEqual(['server', 'shims']);
  expect(values.server.config.persistence).toEqual({
    defaultStore: 'default',
    visibilityStore: 'visibility',
    numHistoryShards: 512,
    datastores: {
      default: { sql: expect.objectContaining({ pluginName: 'postgres12_pgx', driverName: 'postgres12_pgx', databaseName: 'temporal' }) },
      visibility: { sql: expect.objectContaining({ databaseName: 'temporal_visibility' }) },
    },
  });
  expect(values.server.config.persistence.datastores.visibility.sql).toEqual({
    pluginName: 'postgres12_pgx',
    driverName: 'postgres12_pgx',
    databaseName: 'temporal_visibility',
    connectAddr: 'ddb-cluster-rw.ddb.svc:5432',
    connectProtocol: 'tcp',
    user: 'temporal',
    existingSecret: 'ddb-cluster-temporal',
    secretKey: 'password',
    createDatabase: false,
    manageSchema: true,
  });
  expect(temporalValuesProblems(values)).toEqual([]);
});

const FIX = 'Remove it from the values override.';

test.each(['cassandra', 'elasticsearch', 'mysql', 'postgresql', 'prometheus', 'grafana'])('a top-level %s key is a problem, even disabled', (key) => {
  const values = temporalValues({ ...OPTIONS, valuesOverride: { [key]: { enabled: false } } });
  expect(temporalValuesProblems(values)).toEqual([
    `top-level key '${key}' is set (to {"enabled":false}). Temporal chart 1.6.0 has no subcharts and refuses any of ` +
    'cassandra, elasticsearch, grafana, mysql, postgresql, prometheus, even {enabled: false}; Temporal runs on PostgreSQL only. ' + FIX,
  ]);
});

test.each(['pluginName', 'driverName'])('a non-PostgreSQL %s is a problem', (field) => {
  const values = temporalValues({ ...OPTIONS, valuesOverride: { server: { config: { persistence: { datastores: { default: { sql: { [field]: 'mysql8' } } } } } } } });
  expect(temporalValuesProblems(values)).toEqual([
    `server.config.persistence.datastores.default.sql.${field} is "mysql8", but Temporal runs on PostgreSQL only. ` +
    'Use one of \'postgres12\', \'postgres12_pgx\' as the SQL plugin.',
  ]);
});

test('visibility on Elasticsearch is a problem', () => {
  const values = temporalValues({
    ...OPTIONS,
    valuesOverride: { server: { config: { persistence: { visibilityStore: 'es-visibility', datastores: { 'es-visibility': { elasticsearch: { url: 'http://es:9200' } } } } } } },
  });
  expect(temporalValuesProblems(values)).toEqual([
    `server.config.persistence.datastores.es-visibility sets 'elasticsearch', but Temporal runs on PostgreSQL only. ${FIX}`,
    'server.config.persistence.visibilityStore is "es-visibility", which is not the PostgreSQL datastore \'visibility\'; ' +
    `visibility must stay on PostgreSQL (a datastore with sql settings). ${FIX}`,
  ]);
});

test('a Cassandra main store is a problem', () => {
  const values = temporalValues({ ...OPTIONS, valuesOverride: { server: { config: { persistence: { datastores: { default: { cassandra: { hosts: ['c'] } } } } } } } });
  expect(temporalValuesProblems(values)).toEqual([
    `server.config.persistence.datastores.default sets 'cassandra', but Temporal runs on PostgreSQL only. ${FIX}`,
  ]);
});

test('the 0.x persistence layout and removed schema keys are problems', () => {
  const values = temporalValues({
    ...OPTIONS,
    valuesOverride: { server: { config: { persistence: { default: { driver: 'cassandra' } } } }, schema: { setup: { enabled: true } } },
  });
  expect(temporalValuesProblems(values)).toEqual([
    'server.config.persistence.default is the 0.x layout, which chart 1.6.0 refuses. Configure stores under ' +
    `server.config.persistence.datastores.<name>.sql. ${FIX}`,
    'schema.setup was removed in chart 1.x and fails rendering; the generated values set createDatabase and manageSchema on each ' +
    `datastore. ${FIX}`,
  ]);
});

test('a harmless override merges in', () => {
  const values = temporalValues({ ...OPTIONS, valuesOverride: { server: { replicaCount: 2 }, web: { enabled: true } } }) as any;
  expect(values.server.replicaCount).toBe(2);
  expect(values.server.config.persistence.defaultStore).toBe('default');
  expect(values.web).toEqual({ enabled: true });
  expect(temporalValuesProblems(values)).toEqual([]);
});

test('deepMerge merges objects and replaces everything else; sortKeys sorts recursively', () => {
  expect(deepMerge({ a: { b: 1, c: [1] } }, { a: { c: [2], d: 3 } })).toEqual({ a: { b: 1, c: [2], d: 3 } });
  expect(JSON.stringify(sortKeys({ b: { d: 1, c: 2 }, a: [{ z: 1, y: 2 }] }))).toBe('{"a":[{"y":2,"z":1}],"b":{"c":2,"d":1}}');
});
