import { REFERENCE_HOMELAB } from '../../lib/config/defaults';
import { planSteps } from '../../lib/output/render-steps';
import {
  BARMAN_CLOUD_PLUGIN, backupsLeftBehind, CNPG_REPLICA_SECONDS, Lua51HealthEvaluator, PHASE_FAILURE_PLUGIN, PHASE_UNKNOWN_PLUGIN,
  remoteManifestObjects, Scenario, scenariosFor, simulateBringUp, simulateScenario, SimulationInput, TimelineEvent, World,
} from '../../lib/simulation';
import { synthesizeHomelab } from '../../lib/synth/synthesize-homelab';
import backupExample from '../../examples/backup.config';
import { findTool, testWith } from '../tools';
import { withoutPluginStep } from './plugin-step';

const lua = findTool('lua5.1', ['lua5.1'], '-v');
const luaTest = testWith(lua);
const evaluator = new Lua51HealthEvaluator({ command: lua.command ?? 'lua5.1' });

const PLUGIN_MANIFEST = 'https://github.com/cloudnative-pg/plugin-barman-cloud/releases/download/v0.14.0/manifest.yaml';

type Obj = Record<string, any>;

const cluster = (spec: Obj): Obj => ({
  apiVersion: 'postgresql.cnpg.io/v1', kind: 'Cluster', metadata: { name: 'db', namespace: 'apps' }, spec: { instances: 1, ...spec },
});
const objectStore = (name: string): Obj => ({
  apiVersion: 'barmancloud.cnpg.io/v1', kind: 'ObjectStore', metadata: { name, namespace: 'apps' },
  spec: { configuration: { destinationPath: 's3://bucket/cnpg/', endpointURL: 'https://s3.example.net' } },
});
const archiving = (serverName: string) => ({
  plugins: [{ name: BARMAN_CLOUD_PLUGIN, isWALArchiver: true, parameters: { barmanObjectName: 'store', serverName } }],
});
const recovery = (serverName: string) => ({
  bootstrap: { recovery: { source: 'old' } },
  externalClusters: [{ name: 'old', plugin: { name: BARMAN_CLOUD_PLUGIN, parameters: { barmanObjectName: 'store', serverName } } }],
});

/** Moves `world` forward in 5-second ticks from `from` to `to`. */
function run(world: World, from: number, to: number): void {
  for (let t = from; t <= to; t += 5) world.reconcile(t);
}

describe('the simulated CNPG operator with the Barman Cloud plugin', () => {
  const [service, deployment] = remoteManifestObjects(PLUGIN_MANIFEST);

  test('knows the plugin Service and Deployment of the pinned release manifest, and nothing of other URLs', () => {
    expect(service.metadata.labels['cnpg.io/pluginName']).toBe(BARMAN_CLOUD_PLUGIN);
    expect(service.metadata.namespace).toBe('cnpg-system');
    expect(deployment.spec.template.metadata.labels).toEqual(service.spec.selector);
    expect(remoteManifestObjects(PLUGIN_MANIFEST.replace('v0.14.0', 'v0.13.0'))).toEqual([]);
  });

  test('a Cluster naming a plugin without a Service reports the unknown-plugin phase and never becomes Ready', () => {
    const world = new World({});
    const db = world.apply(cluster(archiving('db')), 0);
    run(world, 0, 7200);
    expect(db.status?.phase).toBe(PHASE_UNKNOWN_PLUGIN);
    expect(db.status?.phaseReason).toBe(`Unknown plugin: '${BARMAN_CLOUD_PLUGIN}'. This may be caused by the plugin not being loaded `
      + 'correctly by the operator. Check the operator and plugin logs for errors');
    expect(db.status?.conditions).toEqual([expect.objectContaining({ type: 'Ready', status: 'False' })]);
  });

  test('without its TLS Secrets the plugin is not registered and its pods cannot mount them', () => {
    const world = new World({ missingSecrets: ['cnpg-system/barman-cloud-client-tls'] });
    world.apply(service, 0);
    const plugin = world.apply(deployment, 0);
    const db = world.apply(cluster(archiving('db')), 0);
    run(world, 0, 900);
    expect(db.status?.phase).toBe(PHASE_UNKNOWN_PLUGIN);
    expect(plugin.status?.podMessage).toBe('MountVolume.SetUp failed for volume "client" : secret "barman-cloud-client-tls" not found');
  });

  test('a registered plugin whose pods do not serve stops the Cluster with the plugin-interaction phase, until they do', () => {
    const world = new World({});
    world.apply(service, 0);
    world.apply(deployment, 0);
    world.apply(objectStore('store'), 0);
    const db = world.apply(cluster(archiving('db')), 0);
    world.reconcile(5);
    expect(db.status?.phase).toBe(PHASE_FAILURE_PLUGIN);
    expect(db.status?.phaseReason).toMatch(/^Error while discovering plugins: while getting plugin connection: .*barman-cloud\.cnpg-system\.svc:9090/);
    run(world, 10, 600);
    expect(db.status?.phase).toBe('Cluster in healthy state');
    expect(db.status?.conditions).toContainEqual(expect.objectContaining({ type: 'ContinuousArchiving', status: 'True' }));
  });

  test('the bootstrap runs once: a running Cluster re-applied with bootstrap.recovery is not restored', () => {
    // GIVEN a running cluster made with initdb, and an object store that holds no backup of the server it would read
    const world = new World({});
    world.apply(service, 0);
    world.apply(deployment, 0);
    world.apply(objectStore('store'), 0);
    const events: string[] = [];
    world.log = (source, message) => events.push(`${source}: ${message}`);
    const db = world.apply(cluster({ bootstrap: { initdb: { database: 'app', owner: 'app' } } }), 0);
    run(world, 0, 600);
    expect(db.status?.phase).toBe('Cluster in healthy state');
    // WHEN the config now says to restore it
    world.apply(cluster(recovery('db-old')), 600);
    run(world, 605, 3000);
    // THEN nothing restores: the full-recovery Job never runs, the cluster stays healthy
    expect(db.manifest.metadata.generation).toBe(2);
    expect(db.status?.phase).toBe('Cluster in healthy state');
    expect(db.memory?.bootstrap).toBe('initdb');
    expect(events.filter((e) => /full-recovery|creating primary/.test(e))).toEqual(['cnpg: Cluster apps/db: creating primary instance db-1 (initdb)']);
    expect(events).toContain('cnpg: Cluster apps/db: spec.bootstrap.recovery ignored: the cluster already has instances, bootstrap runs only at creation');
  });

  test('a cluster restored from server X that archives under X is refused: X already holds the archive it restores from', () => {
    const world = new World({}, { archives: [{ destinationPath: 's3://bucket/cnpg', serverName: 'db' }] });
    world.apply(service, 0);
    world.apply(deployment, 0);
    world.apply(objectStore('store'), 0);
    const db = world.apply(cluster({ ...recovery('db'), ...archiving('db') }), 0);
    run(world, 0, 1800);
    expect(db.status?.phase).toBe('Cluster is unrecoverable and needs manual intervention');
    expect(world.problems().join('\n')).toContain('ERROR: WAL archive check failed for server db: Expected empty archive');
  });

  test('a second cluster archiving under a server name another one already wrote to is refused, and keeps running', () => {
    const world = new World({});
    world.apply(service, 0);
    world.apply(deployment, 0);
    world.apply(objectStore('store'), 0);
    const first = world.apply(cluster(archiving('shared')), 0);
    const second = world.apply({ ...cluster(archiving('shared')), metadata: { name: 'db2', namespace: 'apps' } }, 0);
    run(world, 0, 600 + CNPG_REPLICA_SECONDS);
    expect(first.status?.conditions).toContainEqual(expect.objectContaining({ type: 'ContinuousArchiving', status: 'True' }));
    expect(second.status?.phase).toBe('Cluster in healthy state');
    expect(second.status?.conditions).toContainEqual({
      type: 'ContinuousArchiving', status: 'False', reason: 'ContinuousArchivingFailing',
      message: 'rpc error: code = Unknown desc = unexpected failure invoking barman-cloud-wal-archive: exit status 1',
    });
  });
});

describe('bring-up simulation of examples/backup.config.ts', () => {
  const synthesis = synthesizeHomelab(backupExample);
  const input: SimulationInput = { tree: synthesis.tree, steps: planSteps(synthesis.bootstrap.steps) };
  const scenarios = scenariosFor(input);
  const scenario = (name: string) => {
    const s = scenarios.find((x) => x.name === name);
    if (!s) throw new Error(`no scenario ${name}; have ${scenarios.map((x) => x.name).join(', ')}`);
    return s;
  };
  const firstAt = (timeline: readonly TimelineEvent[], test: (e: TimelineEvent) => boolean): number => {
    const e = timeline.find(test);
    if (!e) throw new Error('event not in the timeline');
    return e.at;
  };

  test('offers the backup and restore scenarios, starting from the archive forgejo-db left behind', () => {
    expect(scenarios.map((s) => s.name)).toEqual(expect.arrayContaining([
      'rebuild-with-restore', 'restore-source-missing', 'wal-archive-not-empty', 'plugin-not-registered', 're-run-does-not-restore-again',
      'object-store-unreachable', 'plugin-never-ready', 'wal-archive-not-empty-running',
    ]));
    expect(backupsLeftBehind(input)).toEqual({ archives: [{ destinationPath: 's3://homelab-pg-backups/cnpg/', serverName: 'forgejo-db' }] });
  });

  luaTest('rebuild with restore: forgejo-db is restored and Ready before Forgejo starts, and Argo CD after Forgejo', () => {
    // WHEN
    const outcome = simulateScenario(input, scenario('rebuild-with-restore'), { evaluator });
    // THEN
    expect(outcome.state).toBe('Healthy');
    const t = outcome.timeline;
    const registered = firstAt(t, (e) => e.message === `Successfully registered plugin ${BARMAN_CLOUD_PLUGIN} at barman-cloud.cnpg-system.svc:9090`);
    const restoreStarts = firstAt(t, (e) => e.message.includes('creating primary instance forgejo-db-1 (Job forgejo-db-1-full-recovery restores server forgejo-db'));
    const restored = firstAt(t, (e) => e.message === 'Job cicd/forgejo-db-1-full-recovery completed: the primary forgejo-db-1 was restored from the backup');
    const ready = firstAt(t, (e) => e.message === 'Cluster cicd/forgejo-db: Cluster in healthy state');
    const forgejo = firstAt(t, (e) => e.source === 'runbook' && / forgejo applied /.test(e.message));
    const argocd = firstAt(t, (e) => e.source.startsWith('argocd/'));
    expect(registered).toBeLessThanOrEqual(restoreStarts);
    expect(restoreStarts).toBeLessThan(restored);
    expect(restored).toBeLessThan(ready);
    expect(ready).toBeLessThanOrEqual(forgejo);
    expect(forgejo).toBeLessThan(argocd);
    // The restored cluster archives under the next name of its lineage, which is empty.
    const db = outcome.world.get('Cluster', 'cicd', 'forgejo-db');
    expect(db?.status?.conditions).toContainEqual(expect.objectContaining({ type: 'ContinuousArchiving', status: 'True' }));
    expect(t.some((e) => e.message === 'Cluster cicd/forgejo-db: WAL archiving into server forgejo-db-2 works')).toBe(true);
  });

  luaTest('a restore whose source has no backup ends unrecoverable, and the Job log says why', () => {
    const outcome = simulateScenario(input, scenario('restore-source-missing'), { evaluator });
    expect(outcome.state).toBe('Failed');
    expect(outcome.where).toBe(`runbook step ${input.steps.find((p) => p.step.stepName === 'postgres-forgejo-db')!.index} postgres-forgejo-db`);
    expect(outcome.message).toContain('clusters.postgresql.cnpg.io/forgejo-db: Cluster is unrecoverable and needs manual intervention');
    // The runbook fails as soon as CNPG gives up (wait_job --fail-when on the phase), not at the wait's hour.
    expect(outcome.message).toContain('clusters.postgresql.cnpg.io/forgejo-db is \'Cluster is unrecoverable and needs manual intervention\'');
    const applied = outcome.timeline.find((e) => / postgres-forgejo-db applied /.test(e.message))!.at;
    expect(outcome.at - applied).toBeLessThan(900);
    expect(outcome.finalState).toEqual([
      'Cluster cicd/forgejo-db: Cluster is unrecoverable and needs manual intervention: Instance creation failed for the following jobs: '
      + 'forgejo-db-1-full-recovery. Check the job logs to investigate the cause of the failure.; logs of job/forgejo-db-1-full-recovery: '
      + 'Downloaded backup catalog: server forgejo-db has no backups; while restoring cluster: rpc error: code = Unknown desc = no target backup found',
    ]);
    // Forgejo never starts on a database that was not restored.
    expect(outcome.timeline.some((e) => / forgejo applied /.test(e.message))).toBe(false);
  });

  luaTest('a re-run on the live cluster does not restore again, even once the backup it was restored from has expired', () => {
    const outcome = simulateScenario(input, scenario('re-run-does-not-restore-again'), { evaluator });
    const first = outcome.firstRun!;
    expect(first.state).toBe('Healthy');
    expect(outcome.state).toBe('Healthy');
    // The outcome's timeline is the second run's; its clock continues where the first one stopped.
    const secondRun = outcome.timeline;
    expect(secondRun[0].at).toBeGreaterThanOrEqual(first.at);
    expect(secondRun.some((e) => e.source === 'runbook' && / postgres-forgejo-db applied /.test(e.message))).toBe(true);
    expect(secondRun.filter((e) => /creating primary|full-recovery/.test(e.message) || e.source.startsWith('job/'))).toEqual([]);
    expect(outcome.world.get('Cluster', 'cicd', 'forgejo-db')?.memory?.startedAt).toBeLessThan(first.at);
  });

  luaTest('without a step that installs the plugin, forgejo-db names a plugin nothing installs and never becomes Ready', () => {
    // As the example would run if no step installed the plugin.
    const bare = withoutPluginStep(input);
    const s: Scenario = scenariosFor(bare).find((x) => x.name === 'plugin-not-registered')!;
    expect(s.faults).toEqual({});
    const outcome = simulateScenario(bare, s, { evaluator });
    expect(outcome.state).toBe('Failed');
    expect(outcome.message).toContain(`clusters.postgresql.cnpg.io/forgejo-db: ${PHASE_UNKNOWN_PLUGIN}`);
    expect(outcome.finalState.join('\n')).toContain(`Unknown plugin: '${BARMAN_CLOUD_PLUGIN}'`);
  });
});

describe('bring-up simulation: the reference homelab, then the runbook of a config that restores forgejo-db', () => {
  luaTest('the running forgejo-db (initdb) is left as it is: its bootstrap is not re-run', () => {
    // GIVEN the reference homelab brought up (forgejo-db made by initdb) and no backup anywhere
    const reference = synthesizeHomelab(REFERENCE_HOMELAB);
    const first = simulateBringUp({ tree: reference.tree, steps: planSteps(reference.bootstrap.steps) }, { evaluator });
    expect(first.state).toBe('Healthy');
    expect(first.world.surroundings.archives).toEqual([]);
    // WHEN the runbook of the backup config (restoreFrom on forgejo-db) runs against the live cluster
    const backup = synthesizeHomelab(backupExample);
    const backupInput = { tree: backup.tree, steps: planSteps(backup.bootstrap.steps) };
    const second = simulateBringUp(backupInput, { evaluator, world: first.world });
    // THEN it converges without a restore (which would fail: the object store holds nothing)
    expect(second.state).toBe('Healthy');
    const db = second.world.get('Cluster', 'cicd', 'forgejo-db');
    expect(db?.manifest.spec.bootstrap.recovery).toBeDefined();
    expect(db?.manifest.metadata.generation).toBe(2);
    expect(db?.memory?.bootstrap).toBe('initdb');
    const secondRun = second.timeline;
    expect(secondRun[0].at).toBeGreaterThanOrEqual(first.at);
    expect(secondRun.some((e) => e.message.includes('forgejo-db: spec.bootstrap.recovery ignored'))).toBe(true);
    expect(secondRun.filter((e) => e.source.startsWith('job/') || e.message.includes('full-recovery'))).toEqual([]);
  });
});
