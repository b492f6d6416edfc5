// The runbook's restore path against kube-apiserver: the runbook synthesized from examples/backup.config.ts
// (forgejo-db recovered from server forgejo-db through the Barman Cloud plugin and archiving under forgejo-db-2,
// Forgejo's data volume filled from a dump by an init container) on a bare cluster, and on a cluster the reference
// homelab's runbook built, whose forgejo-db already has data.
//
// What runs for real: kube-apiserver, CNPG v1.30.0's admission webhooks, the runbook with bash and kubectl, the wait
// Jobs' kubectl. What does not: CNPG's controllers, the plugin and Postgres (the StatusWriter plays CNPG's status,
// and records which bootstrap it would run: test/cluster/harness/status-writer.ts). What the restore itself does
// inside CNPG and the plugin (the recovery, its failures, a re-run after the backup expired) is the bring-up
// simulation's part: test/simulation/backup-restore.test.ts, scenario `re-run-does-not-restore-again` among them.
//
// Two API servers, started together: the bare one, and the one the reference runbook builds while the first case runs.
import { randomBytes } from 'crypto';
import * as fs from 'fs';
import * as path from 'path';
import { describeWithShared, offlineCopy, ROOT, synthesize } from './harness/output-tree';
import { createOperatorSecrets, operatorSecrets, RunbookEnv, runbookEnv, RunResult, runRunbook, stepsStarted, tokenFiles } from './harness/runbook';
import { changes, snapshot } from './harness/snapshot';
import { Stack, startStack, stopStack } from './harness/stack';
import { ControlPlane } from './harness/control-plane';

const CLUSTER = 'clusters.postgresql.cnpg.io/forgejo-db';
const PLUGIN = 'barman-cloud.cloudnative-pg.io';
const NOTE_EXISTS = '  → Cluster cicd/forgejo-db exists: its bootstrap ran when it was created; restoreFrom is not applied again';
const NOTE_ABSENT = '  → Cluster cicd/forgejo-db does not exist: it is created now and recovers server forgejo-db from its object store (restoreFrom)';

function stepCount(tree: string): number {
  return Number(/^STEPS=(\d+)$/m.exec(fs.readFileSync(path.join(tree, 'bootstrap', 'bootstrap.sh'), 'utf8'))![1]);
}

/** Where the runbook printed the header of step `name` (`[k/N] name: ...`), or -1. */
function header(output: string, name: string): number {
  return output.search(new RegExp(`^\\[\\d+/\\d+\\] ${name}:`, 'm'));
}

function expectComplete(r: RunResult, tree: string): void {
  const steps = stepCount(tree);
  expect(r.output).toContain(`Bootstrap complete: ${steps} steps applied and ready.`);
  expect(r.status).toBe(0);
  expect(stepsStarted(r.output)).toEqual(Array.from({ length: steps }, (_, i) => i + 1));
  expect(r.output).not.toMatch(/FAILED/);
}

/** A Secret the runbook installs from a local file, and what the file holds: `key` → value. */
interface InstalledSecret {
  readonly step: string;
  readonly namespace: string;
  readonly name: string;
  readonly variable: string;
  readonly data: ReadonlyMap<string, string>;
}

/**
 * Writes made-up values, random per run, into every local file the runbook installs as a Secret
 * (`install_secret_env_file STEP NAMESPACE NAME VARIABLE`: the object stores' keys; `install_secret_file STEP NAMESPACE
 * NAME KEY VARIABLE` of a one-line file: the lost Forgejo's SECRET_KEY), where runbookEnv made them, and returns them.
 */
function madeUpSecrets(tree: string, env: RunbookEnv): InstalledSecret[] {
  const script = fs.readFileSync(path.join(tree, 'bootstrap', 'bootstrap.sh'), 'utf8');
  const tokens = tokenFiles(tree, env.dir);
  const made = () => `made-up-${randomBytes(12).toString('hex')}`;
  const fromEnvFiles = [...script.matchAll(/^\s*install_secret_env_file (\S+) (\S+) (\S+) (\S+)$/gm)].map(([, step, namespace, name, variable]) => {
    const file = env.env[variable]!;
    const keys = fs.readFileSync(file, 'utf8').split('\n').filter((l) => l.includes('=')).map((l) => l.slice(0, l.indexOf('=')));
    const data = new Map(keys.map((k) => [k, made()]));
    fs.writeFileSync(file, [...data].map(([k, v]) => `${k}=${v}\n`).join(''), { mode: 0o600 });
    return { step, namespace, name, variable, data };
  });
  const fromTokenFiles = [...script.matchAll(/^\s*install_secret_file (\S+) (\S+) (\S+) (\S+) (\S+)$/gm)]
    .filter(([, , , , , variable]) => tokens.has(variable))
    .map(([, step, namespace, name, key, variable]) => {
      const data = new Map([[key, made()]]);
      fs.writeFileSync(tokens.get(variable)!, data.get(key)!, { mode: 0o600 });
      return { step, namespace, name, variable, data };
    });
  return [...fromEnvFiles, ...fromTokenFiles];
}

async function getJson(plane: ControlPlane, namespace: string, resource: string, ...extra: string[]): Promise<any> {
  const r = await plane.kubectl(['get', resource, '-n', namespace, '-o', 'json', ...extra]);
  if (r.status !== 0) throw new Error(`kubectl get ${resource} -n ${namespace}: ${r.stderr}`);
  return JSON.parse(r.stdout);
}

/** The bootstrap events the StatusWriter recorded for forgejo-db (one per bootstrap CNPG would run). */
function bootstrapEvents(stack: Stack): string[] {
  return stack.writer.events.filter((e) => e.key === 'Cluster/cicd/forgejo-db' && e.what.startsWith('bootstrapped')).map((e) => e.what);
}

describeWithShared('the restore path of the runbook (examples/backup.config.ts) against kube-apiserver', () => {
  let restoreTree: string;
  let referenceTree: string;
  let bare: Stack;
  let lived: Stack;
  /**
   * On `lived`: the reference homelab's runbook, forgejo-db as it left it, then the restore config's runbook. Started
   * with the stacks, so it runs while the bare case does (the runbooks mostly wait: they poll every 5 s).
   */
  let livedRuns: Promise<{ reference: RunResult; before: any; restore: RunResult }>;

  beforeAll(async () => {
    restoreTree = offlineCopy(synthesize(path.join(ROOT, 'examples', 'backup.config.ts')));
    referenceTree = offlineCopy(path.join(ROOT, 'dist'));
    [bare, lived] = await Promise.all([startStack(), startStack()]);
    livedRuns = (async () => {
      // GIVEN forgejo-db created by initdb, Ready, with its instances
      await createOperatorSecrets(lived.plane, operatorSecrets(referenceTree));
      const reference = await runRunbook(referenceTree, runbookEnv(lived.plane, referenceTree));
      const before = await getJson(lived.plane, 'cicd', CLUSTER);
      // WHEN the restore config's runbook runs on the same API server
      const env = runbookEnv(lived.plane, restoreTree);
      madeUpSecrets(restoreTree, env);
      await createOperatorSecrets(lived.plane, operatorSecrets(restoreTree));
      return { reference, before, restore: await runRunbook(restoreTree, env) };
    })();
    // awaited by the cases on `lived`; a failure is theirs, not an unhandled rejection meanwhile
    livedRuns.catch(() => undefined);
  }, 900_000);
  afterAll(async () => {
    await livedRuns?.catch(() => undefined);
    await Promise.all([stopStack(bare), stopStack(lived)]);
    for (const tree of [restoreTree, referenceTree]) if (tree !== undefined) fs.rmSync(tree, { recursive: true, force: true });
  });

  describe('on a bare cluster', () => {
    let env: RunbookEnv;
    let secrets: InstalledSecret[];
    let run: RunResult;

    beforeAll(async () => {
      env = runbookEnv(bare.plane, restoreTree);
      secrets = madeUpSecrets(restoreTree, env);
      await createOperatorSecrets(bare.plane, operatorSecrets(restoreTree));
      run = await runRunbook(restoreTree, env);
    }, 600_000);

    test('runs to the end: the plugin serves before forgejo-db is created, which the runbook says it restores', () => {
      expectComplete(run, restoreTree);
      expect(header(run.output, 'cnpg-operator')).toBeLessThan(header(run.output, 'barman-cloud-plugin'));
      // The plugin's Deployment rolled out (its TLS Secrets made, its CRD established) before the Cluster's step began.
      const pluginReady = run.output.indexOf('✓ Deployment cnpg-system/barman-cloud rolled out');
      expect(pluginReady).toBeGreaterThan(header(run.output, 'barman-cloud-plugin'));
      expect(pluginReady).toBeLessThan(header(run.output, 'postgres-forgejo-db'));
      expect(run.output).toContain(`${NOTE_ABSENT}\n`);
      expect(run.output).not.toContain(NOTE_EXISTS);
      expect(bare.writer.error).toBeUndefined();
    });

    test('CNPG\'s webhooks admitted forgejo-db as a recovery from server forgejo-db that archives under forgejo-db-2', async () => {
      const cluster = await getJson(bare.plane, 'cicd', CLUSTER);
      expect(cluster.spec.bootstrap).toEqual({
        recovery: { source: 'forgejo-db', database: 'forgejo', owner: 'forgejo', recoveryTarget: { targetTime: '2026-11-30T23:00:00Z' } },
      });
      expect(cluster.spec.externalClusters).toEqual([{
        name: 'forgejo-db',
        plugin: { name: PLUGIN, enabled: true, isWALArchiver: false, parameters: { barmanObjectName: 'forgejo-db-backup', serverName: 'forgejo-db' } },
      }]);
      expect(cluster.spec.plugins).toEqual([{
        name: PLUGIN, enabled: true, isWALArchiver: true, parameters: { barmanObjectName: 'forgejo-db-backup', serverName: 'forgejo-db-2' },
      }]);
      // CNPG's defaulting webhook ran on it (api/v1/cluster_defaults.go setDefaults: logLevel, probes), and CNPG would
      // bootstrap it by recovery (status.instances was 0 when the StatusWriter first made it Ready).
      expect(cluster.spec.logLevel).toBe('info');
      expect(bare.writer.bootstraps.get('cicd/forgejo-db')).toEqual({ method: 'recovery', source: 'forgejo-db', serverName: 'forgejo-db' });
      expect((await getJson(bare.plane, 'cicd', 'objectstores.barmancloud.cnpg.io/forgejo-db-backup')).spec.configuration.destinationPath)
        .toBe('s3://homelab-pg-backups/cnpg/');

      // The validating webhook judges the recovery stanza of this very object (internal/webhook/v1/cluster_webhook.go
      // validateBootstrapRecoverySource, validateBootstrapMethod): admitted above, refused when it is wrong.
      const probe = (spec: object) => bare.plane.kubectl(['create', '--dry-run=server', '-f', '-'], JSON.stringify({
        apiVersion: cluster.apiVersion, kind: 'Cluster', metadata: { name: 'forgejo-db-probe', namespace: 'cicd' }, spec: { ...cluster.spec, ...spec },
      }));
      const wrongSource = await probe({ bootstrap: { recovery: { ...cluster.spec.bootstrap.recovery, source: 'no-such-server' } } });
      expect(wrongSource.status).not.toBe(0);
      expect(wrongSource.stderr).toContain('spec.bootstrap.recovery.source: Invalid value: "no-such-server": External cluster no-such-server not found');
      const both = await probe({ bootstrap: { ...cluster.spec.bootstrap, initdb: { database: 'forgejo', owner: 'forgejo' } } });
      expect(both.stderr).toContain('spec.bootstrap: Forbidden: Only one bootstrap method can be specified at a time');
    });

    test('the Forgejo Deployment restores its data volume in an init container before Forgejo starts', async () => {
      const forgejo = await getJson(bare.plane, 'cicd', 'deployment/forgejo');
      expect(forgejo.spec.template.spec.initContainers.map((c: any) => c.name)).toEqual(['restore-data']);
      expect(run.output).toMatch(/✓ Deployment cicd\/forgejo rolled out/);
    });

    test('the object-store keys and Forgejo\'s SECRET_KEY were installed from the local files, by their steps, and never printed', async () => {
      // forgejo-db's store (its step), Forgejo's dumps' store and the lost Forgejo's SECRET_KEY (Forgejo's step)
      expect(secrets.map((x) => `${x.step}: ${x.namespace}/${x.name} from $${x.variable}`)).toEqual([
        'postgres-forgejo-db: cicd/forgejo-db-backup-s3 from $FORGEJO_DB_BACKUP_S3_ENV_FILE',
        'forgejo: cicd/homelab-backup-s3 from $HOMELAB_BACKUP_S3_ENV_FILE',
        'forgejo: cicd/forgejo-secret-key from $FORGEJO_SECRET_KEY_FILE',
      ]);
      for (const x of secrets) {
        const secret = await getJson(bare.plane, x.namespace, `secret/${x.name}`, '--show-managed-fields');
        expect(Object.fromEntries(Object.entries(secret.data).map(([k, v]) => [k, Buffer.from(v as string, 'base64').toString()])))
          .toEqual(Object.fromEntries(x.data));
        expect(secret.metadata.managedFields.map((m: any) => m.manager)).toEqual([`homelab-bootstrap-${x.step}`]);
        for (const value of x.data.values()) {
          expect(run.output).not.toContain(value);
          expect(run.output).not.toContain(Buffer.from(value).toString('base64'));
        }
      }
      expect(run.output).toContain('applied Secret cicd/forgejo-db-backup-s3 from the env file $FORGEJO_DB_BACKUP_S3_ENV_FILE');
    });

    test('a second run changes nothing: no object is written again, the Cluster is not bootstrapped again', async () => {
      const before = await snapshot(bare.plane);
      const r = await runRunbook(restoreTree, env);
      expectComplete(r, restoreTree);
      expect(changes(before, await snapshot(bare.plane))).toEqual([]);
      expect(r.output).toContain(`${NOTE_EXISTS}\n`);
      expect(bootstrapEvents(bare)).toEqual(['bootstrapped: {"method":"recovery","source":"forgejo-db","serverName":"forgejo-db"}']);
      for (const value of secrets.flatMap((x) => [...x.data.values()])) expect(r.output).not.toContain(value);
    });
  });

  describe('on a cluster the reference homelab\'s runbook built: a restore never overwrites a cluster that already has data', () => {
    let before: any;
    let run: RunResult;

    beforeAll(async () => {
      const runs = await livedRuns;
      expectComplete(runs.reference, referenceTree);
      ({ before, restore: run } = runs);
    }, 600_000);

    test('the reference runbook created forgejo-db by initdb', () => {
      expect(before.spec.bootstrap.initdb).toEqual(expect.objectContaining({ database: 'forgejo', owner: 'forgejo' }));
      expect(before.status.instances).toBe(before.spec.instances);
      expect(bootstrapEvents(lived)).toEqual(['bootstrapped: {"method":"initdb","database":"forgejo","owner":"forgejo"}']);
    });

    test('the runbook says, before changing it, that forgejo-db is not restored again, and runs to the end', () => {
      expectComplete(run, restoreTree);
      expect(run.output).toContain(`${NOTE_EXISTS}\n`);
      expect(run.output).not.toContain(NOTE_ABSENT);
      const step = header(run.output, 'postgres-forgejo-db');
      expect(run.output.indexOf(NOTE_EXISTS)).toBeGreaterThan(step);
      expect(run.output.indexOf(NOTE_EXISTS)).toBeLessThan(run.output.indexOf('applied Secret cicd/forgejo-db-backup-s3', step));
    });

    test('the API server took the new spec.bootstrap (CNPG\'s webhook has no bootstrap check on update); its status, and so its data, stayed', async () => {
      const after = await getJson(lived.plane, 'cicd', CLUSTER);
      // The same object: never deleted and re-created.
      expect(after.metadata.uid).toBe(before.metadata.uid);
      expect(after.metadata.generation).toBeGreaterThan(before.metadata.generation);
      // cloudnative-pg v1.30.0 internal/webhook/v1/cluster_webhook.go ValidateUpdate: validate(new) and
      // validateClusterChanges(new, old), whose checks (image, configuration, storage, WAL storage, tablespaces, unix
      // permissions, replication slots, WAL level, replica cluster) include none of spec.bootstrap. The server-side
      // apply drops the initdb our field manager owned, so one bootstrap method is left, as validateBootstrapMethod wants.
      expect(after.spec.bootstrap).toEqual({
        recovery: { source: 'forgejo-db', database: 'forgejo', owner: 'forgejo', recoveryTarget: { targetTime: '2026-11-30T23:00:00Z' } },
      });
      expect(after.spec.plugins[0].parameters.serverName).toBe('forgejo-db-2');
      // CNPG bootstraps only while status.instances == 0 (internal/controller/cluster_controller.go: createPrimaryInstance,
      // which refuses once IsInitialized): the apply changed no status, so no recovery would run over the data.
      expect(after.status).toEqual(before.status);
      expect(after.status.conditions).toContainEqual(expect.objectContaining({ type: 'Initialized', status: 'True', reason: 'BootstrapCompleted' }));
      expect(bootstrapEvents(lived)).toEqual(['bootstrapped: {"method":"initdb","database":"forgejo","owner":"forgejo"}']);
      expect(lived.writer.error).toBeUndefined();
    });
  });
});
