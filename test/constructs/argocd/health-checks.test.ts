import { execFileSync } from 'child_process';
import { Testing } from 'cdk8s';
import { ArgoCdInstall } from '../../../lib/constructs/argocd/argocd-install';
import { findTool, testWith } from '../../tools';
const { helperPath } = require('../../../scripts/build-lua-health.js') as { helperPath: () => string };

// The health checks run the way Argo CD v3.5.1 runs them: tools/lua-health links Argo CD's own code (argocd-cm
// parsed by util/settings, health.GetResourceHealth of gitops-engine, the util/lua sandbox without the string
// and math libraries, 1 s timeout), fed the argocd-cm data the install really patches in. .ci/run builds it
// (node scripts/build-lua-health.js); without it these tests are skipped, with the reason in their names.
const HELPER = findTool('lua-health (node scripts/build-lua-health.js; needs Go)', [helperPath()], '--version');
const vmTest = testWith(HELPER);

const chart = Testing.chart();
const ARGOCD_CM = new ArgoCdInstall(chart, 'ArgoCd').healthChecks;

interface Health { status: string; message: string; error?: string }
interface Case { name: string; object: Record<string, unknown>; expected: Health }

/** Every case of a file in one run of the helper (it starts in about 0.3 s). */
function evaluate(cases: Case[]): Health[] {
  const input = JSON.stringify({ argocdCm: ARGOCD_CM, objects: cases.map((c) => c.object) });
  return JSON.parse(execFileSync(HELPER.command!, [], { input }).toString()) as Health[];
}

function describeCases(title: string, cases: Case[]) {
  describe(title, () => {
    let results: Health[] = [];
    beforeAll(() => {
      if (HELPER.command !== undefined) results = evaluate(cases);
    });
    cases.forEach((c, i) => vmTest(c.name, () => {
      // A Lua error would come back as status Unknown with `error` set: never expected here.
      expect(results[i]).toEqual(c.expected);
    }));
  });
}

// --- Application: fixtures shaped as argo-cd v3.5.1 pkg/apis/application/v1alpha1/types.go writes them:
// ApplicationStatus (sync, health, conditions, operationState, reconciledAt), SyncStatus (status, comparedTo,
// revision), OperationState (phase, message, syncResult.revision, finishedAt), ApplicationCondition (type,
// message); phases from gitops-engine/pkg/sync/common/types.go lines 77-81.
const source = { repoURL: 'git@github.com:o/homelab.git', path: 'k8s/generated/x', targetRevision: 'main' };
const REV = '0123456789abcdef0123456789abcdef01234567';
function app(status: Record<string, unknown> | undefined, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    apiVersion: 'argoproj.io/v1alpha1', kind: 'Application', metadata: { name: 'child', namespace: 'argocd' },
    spec: { project: 'homelab', source, destination: { server: 'https://kubernetes.default.svc', namespace: 'x' } },
    ...(status === undefined ? {} : { status }),
    ...extra,
  };
}
const compared = { comparedTo: { source, destination: { server: 'https://kubernetes.default.svc', namespace: 'x' } }, revision: REV };
const synced = { status: 'Synced', ...compared };
const outOfSync = { status: 'OutOfSync', ...compared };
const succeeded = { phase: 'Succeeded', message: 'successfully synced (all tasks run)', syncResult: { revision: REV },
  startedAt: '2026-12-01T10:00:00Z', finishedAt: '2026-12-01T10:01:00Z' };

describeCases('Application health check (app-of-apps gate), in Argo CD v3.5.1\'s Lua VM', [
  { name: 'Progressing without status', object: app(undefined),
    expected: { status: 'Progressing', message: 'Waiting for the Application controller' } },
  { name: 'Progressing while a sync runs, with Argo CD\'s message (retries included)',
    object: app({ sync: outOfSync, health: { status: 'Progressing' },
      operationState: { phase: 'Running', message: 'one or more tasks are running. Retrying attempt #1 at 10:05AM.' } }),
    expected: { status: 'Progressing', message: 'Sync Running: one or more tasks are running. Retrying attempt #1 at 10:05AM.' } },
  { name: 'Progressing while a timed-out sync terminates (controller/appcontroller.go 1542-1547)',
    object: app({ sync: outOfSync, operationState: { phase: 'Terminating', message: 'operation is terminating due to timeout' } }),
    expected: { status: 'Progressing', message: 'Sync Terminating: operation is terminating due to timeout' } },
  { name: 'Progressing when a sync was requested but has not started (the top-level operation field)',
    object: app({ sync: outOfSync, operationState: { ...succeeded } }, { operation: { sync: { revision: REV } } }),
    expected: { status: 'Progressing', message: 'Sync requested' } },
  { name: 'Progressing while the status describes an older spec.source (stale Failed state does not count)',
    object: app({ sync: { ...outOfSync, comparedTo: { source: { ...source, path: 'k8s/old' } } },
      operationState: { phase: 'Failed', message: 'old failure' } }),
    expected: { status: 'Progressing', message: 'Waiting for Argo CD to compare the new source' } },
  { name: 'Degraded on a ComparisonError (repository or chart unreachable), with its message',
    object: app({ sync: { ...compared, status: 'Unknown' }, health: { status: 'Healthy' },
      conditions: [{ type: 'ComparisonError', message: 'Failed to load target state: rpc error: repository not found' }] }),
    expected: { status: 'Degraded', message: 'ComparisonError: Failed to load target state: rpc error: repository not found' } },
  { name: 'Degraded on the SyncError auto-sync writes when it will not retry (appcontroller.go 2397-2399)',
    object: app({ sync: outOfSync, conditions: [{ type: 'SharedResourceWarning', message: 'shared' },
      { type: 'SyncError', message: `Failed last sync attempt to [${REV}]: one or more objects failed to apply` }] }),
    expected: { status: 'Degraded', message: `SyncError: Failed last sync attempt to [${REV}]: one or more objects failed to apply` } },
  { name: 'a warning condition alone does not fail the child',
    object: app({ sync: synced, health: { status: 'Healthy' }, conditions: [{ type: 'OrphanedResourceWarning', message: 'orphans' }] }),
    expected: { status: 'Healthy', message: 'Synced and healthy' } },
  { name: 'a failed sync names its failed task from syncResult.resources (ResourceResult: status SyncFailed, message)',
    object: app({ sync: outOfSync, health: { status: 'Healthy' },
      operationState: { phase: 'Failed', message: 'one or more objects failed to apply, reason: admission webhook denied the request',
        syncResult: { revision: REV, resources: [
          { group: 'apps', version: 'v1', kind: 'Deployment', namespace: 'x', name: 'web', status: 'Synced', message: 'deployment.apps/web created' },
          { group: '', version: 'v1', kind: 'Service', namespace: 'x', name: 'web', status: 'SyncFailed', message: 'admission webhook denied the request' },
        ] } } }),
    expected: { status: 'Degraded', message: 'Sync Failed: one or more objects failed to apply, reason: admission webhook denied the request '
      + '(Service x/web: admission webhook denied the request)' } },
  { name: 'a sync that failed on health names the Degraded resource from the persisted resource health',
    object: app({ sync: synced, health: { status: 'Degraded' },
      resources: [
        { version: 'v1', kind: 'ConfigMap', namespace: 'x', name: 'settings', status: 'Synced' },
        { group: 'postgresql.cnpg.io', version: 'v1', kind: 'Cluster', namespace: 'ddb', name: 'ddb-cluster', status: 'Synced',
          health: { status: 'Degraded', message: 'Invalid cluster definition: spec.storage.size: Invalid value' } },
      ],
      operationState: { phase: 'Failed', message: 'one or more synchronization tasks completed unsuccessfully', syncResult: { revision: REV } } }),
    expected: { status: 'Degraded', message: 'Sync Failed: one or more synchronization tasks completed unsuccessfully '
      + '(Cluster ddb/ddb-cluster: Invalid cluster definition: spec.storage.size: Invalid value)' } },
  { name: 'a Synced but Degraded child names its Degraded resource (controller.resource.health.persist)',
    object: app({ sync: synced, health: { status: 'Degraded' },
      resources: [{ group: 'apps', version: 'v1', kind: 'Deployment', namespace: 'x', name: 'web', status: 'Synced',
        health: { status: 'Degraded', message: 'Deployment "web" exceeded its progress deadline' } }] }),
    expected: { status: 'Degraded', message: 'Synced, health Degraded (Deployment x/web: Deployment "web" exceeded its progress deadline)' } },
  { name: 'Degraded when the last sync Failed (retries exhausted), with its message',
    object: app({ sync: outOfSync, health: { status: 'Progressing' },
      operationState: { phase: 'Failed', message: 'one or more objects failed to apply (retried 5 times).' } }),
    expected: { status: 'Degraded', message: 'Sync Failed: one or more objects failed to apply (retried 5 times).' } },
  { name: 'Degraded when the last sync Errored, even if the child reports Synced',
    object: app({ sync: synced, health: { status: 'Healthy' },
      operationState: { phase: 'Error', message: 'Failed to load application project: not found' } }),
    expected: { status: 'Degraded', message: 'Sync Error: Failed to load application project: not found' } },
  { name: 'Degraded on permanent drift: OutOfSync after a successful sync of this revision and a later comparison',
    object: app({ sync: outOfSync, operationState: succeeded, reconciledAt: '2026-12-01T10:04:00Z' }),
    expected: { status: 'Degraded', message: `OutOfSync after a successful sync of revision ${REV}: the live state drifts from git` } },
  { name: 'Progressing when the comparison after a successful sync has not run yet',
    object: app({ sync: outOfSync, operationState: succeeded, reconciledAt: '2026-12-01T09:59:00Z' }),
    expected: { status: 'Progressing', message: 'Waiting for sync (OutOfSync)' } },
  { name: 'Progressing when OutOfSync at a new revision that has not been synced yet',
    object: app({ sync: { ...outOfSync, revision: 'f'.repeat(40) }, operationState: succeeded, reconciledAt: '2026-12-01T10:04:00Z' }),
    expected: { status: 'Progressing', message: 'Waiting for sync (OutOfSync)' } },
  { name: 'Progressing while Synced but Missing (since 3.4 Missing means all resources are missing)',
    object: app({ sync: synced, health: { status: 'Missing' } }),
    expected: { status: 'Progressing', message: 'Waiting for resources to be created' } },
  { name: 'Healthy once Synced and Healthy', object: app({ sync: synced, health: { status: 'Healthy' }, operationState: succeeded }),
    expected: { status: 'Healthy', message: 'Synced and healthy' } },
  { name: 'Progressing while Synced and Progressing', object: app({ sync: synced, health: { status: 'Progressing' } }),
    expected: { status: 'Progressing', message: 'Synced, health Progressing' } },
  { name: 'Degraded when Synced and Degraded', object: app({ sync: synced, health: { status: 'Degraded' } }),
    expected: { status: 'Degraded', message: 'Synced, health Degraded' } },
  { name: 'Degraded when Synced and health Unknown', object: app({ sync: synced, health: { status: 'Unknown' } }),
    expected: { status: 'Degraded', message: 'Health Unknown: Argo CD cannot assess a resource of this Application' } },
  { name: 'a Suspended child (a paused canary) counts as done for its wave: Healthy, saying so',
    object: app({ sync: synced, health: { status: 'Suspended' } }),
    expected: { status: 'Healthy', message: 'Suspended: synced, and every resource is healthy or deliberately paused; counted as done for its sync wave' } },
  { name: 'multi-source children compare spec.sources with comparedTo.sources',
    object: { ...app({ sync: { status: 'Synced', comparedTo: { sources: [source] } }, health: { status: 'Healthy' } }), spec: { sources: [source] } },
    expected: { status: 'Healthy', message: 'Synced and healthy' } },
  { name: 'Argo CD itself reports an Application being deleted as Pending deletion (the script is not run)',
    object: { ...app({ sync: synced, health: { status: 'Healthy' } }), metadata: { name: 'c', namespace: 'argocd', deletionTimestamp: '2026-12-01T10:00:00Z' } },
    expected: { status: 'Progressing', message: 'Pending deletion' } },
]);

// --- CNPG Database: status as cloudnative-pg v1.30.0 api/v1/database_funcs.go writes it (SetAsReady: applied
// true, message cleared, observedGeneration; SetAsFailed / SetAdmissionError: applied false and a message;
// SetAsUnknown: applied cleared, message), the replica message from internal/management/controller/common.go:48.
function database(status?: Record<string, unknown>, generation = 2): Record<string, unknown> {
  return { apiVersion: 'postgresql.cnpg.io/v1', kind: 'Database', metadata: { name: 'temporal', namespace: 'temporal', generation },
    ...(status === undefined ? {} : { status }) };
}
describeCases('CNPG Database health check, in Argo CD v3.5.1\'s Lua VM', [
  { name: 'Progressing before CNPG reports anything', object: database(),
    expected: { status: 'Progressing', message: 'Waiting for CloudNativePG to reconcile the database' } },
  { name: 'Healthy when the current generation is applied (SetAsReady)', object: database({ applied: true, observedGeneration: 2 }),
    expected: { status: 'Healthy', message: 'Database applied' } },
  { name: 'Progressing while a newer generation is not applied yet', object: database({ applied: true, observedGeneration: 1 }),
    expected: { status: 'Progressing', message: 'Waiting for CloudNativePG to apply generation 2' } },
  { name: 'Degraded with CNPG\'s message on SetAsFailed, which leaves observedGeneration unset',
    object: database({ applied: false, message: 'while fetching the cluster: clusters.postgresql.cnpg.io "nope" not found' }),
    expected: { status: 'Degraded', message: 'while fetching the cluster: clusters.postgresql.cnpg.io "nope" not found' } },
  { name: 'Degraded with CNPG\'s message on SetAdmissionError after an earlier success (stale observedGeneration)',
    object: database({ applied: false, observedGeneration: 1, message: 'spec.name: Invalid value: "postgres": the name postgres is reserved' }),
    expected: { status: 'Degraded', message: 'spec.name: Invalid value: "postgres": the name postgres is reserved' } },
  { name: 'Suspended when the cluster is a replica (SetAsUnknown: applied cleared, a message)',
    object: database({ message: 'waiting for the cluster to become primary' }),
    expected: { status: 'Suspended',
      message: 'Not applied: waiting for the cluster to become primary (CloudNativePG applies databases only on a primary cluster)' } },
  { name: 'Progressing with an empty status', object: database({}),
    expected: { status: 'Progressing', message: 'Waiting for CloudNativePG to reconcile the database' } },
  { name: 'Argo CD itself reports a Database being deleted as Pending deletion',
    object: { ...database({ applied: true, observedGeneration: 2 }),
      metadata: { name: 'temporal', namespace: 'temporal', generation: 2, deletionTimestamp: '2026-12-01T10:00:00Z' } },
    expected: { status: 'Progressing', message: 'Pending deletion' } },
]);

// --- CNPG Cluster: every phase constant of cloudnative-pg v1.30.0 api/v1/cluster_types.go (lines 697-767),
// with phaseReason as RegisterPhase writes it (internal/controller/cluster_status.go); hibernation condition
// from pkg/reconciler/hibernation/status.go; annotation cnpg.io/reconciliationLoop from
// pkg/utils/labels_annotations.go:167.
function cluster(status?: Record<string, unknown>, annotations?: Record<string, string>): Record<string, unknown> {
  return { apiVersion: 'postgresql.cnpg.io/v1', kind: 'Cluster',
    metadata: { name: 'forgejo-db', namespace: 'cicd', generation: 1, ...(annotations ? { annotations } : {}) },
    ...(status === undefined ? {} : { status }) };
}
const PHASES: [string, string][] = [
  ['Cluster in healthy state', 'Healthy'],
  ['Setting up primary', 'Progressing'],
  ['Creating a new replica', 'Progressing'],
  ['Upgrading cluster', 'Progressing'],
  ['Upgrading Postgres major version', 'Progressing'],
  ['Cluster upgrade delayed', 'Progressing'],
  ['Primary instance is being restarted in-place', 'Progressing'],
  ['Primary instance is being restarted without a switchover', 'Progressing'],
  ['Switchover in progress', 'Progressing'],
  ['Waiting for the instances to become active', 'Progressing'],
  ['Online upgrade in progress', 'Progressing'],
  ['Applying configuration', 'Progressing'],
  ['Promoting to primary cluster', 'Progressing'],
  ['Failing over', 'Degraded'],
  ['Waiting for user action', 'Degraded'],
  ['Cluster cannot proceed to reconciliation due to an unknown plugin being required', 'Degraded'],
  ['Cluster cannot proceed to reconciliation due to an error while interacting with plugins', 'Degraded'],
  ['Cluster has incomplete or invalid image catalog', 'Degraded'],
  ['Cluster is unrecoverable and needs manual intervention', 'Degraded'],
  ['Cluster cannot execute instance online upgrade due to missing architecture binary', 'Degraded'],
  ['Unable to create required cluster objects', 'Degraded'],
  ['Invalid cluster definition', 'Degraded'],
];
describeCases('CNPG Cluster health check, in Argo CD v3.5.1\'s Lua VM', [
  ...PHASES.map(([phase, status]): Case => ({
    name: `phase "${phase}" is ${status}, with CNPG's reason`,
    object: cluster({ phase, phaseReason: 'the reason CNPG gave', conditions: [{ type: 'Ready', status: 'False' }] }),
    expected: { status, message: `${phase}: the reason CNPG gave` },
  })),
  { name: 'a phase without a reason keeps the phase as the message', object: cluster({ phase: 'Cluster in healthy state' }),
    expected: { status: 'Healthy', message: 'Cluster in healthy state' } },
  { name: 'Progressing, never a Lua error, without status', object: cluster(),
    expected: { status: 'Progressing', message: 'Waiting for CloudNativePG to reconcile the cluster' } },
  { name: 'Progressing with a status but no phase yet', object: cluster({ instances: 1 }),
    expected: { status: 'Progressing', message: 'Waiting for CloudNativePG to report a phase' } },
  { name: 'Degraded for a phase CNPG 1.30 does not have, naming it',
    object: cluster({ phase: 'Doing something new', phaseReason: 'why' }),
    expected: { status: 'Degraded', message: 'Unknown CloudNativePG phase (this check knows CNPG 1.30): Doing something new: why' } },
  { name: 'Suspended when reconciliation is disabled by annotation',
    object: cluster({ phase: 'Failing over' }, { 'cnpg.io/reconciliationLoop': 'disabled' }),
    expected: { status: 'Suspended', message: 'Reconciliation is disabled (cnpg.io/reconciliationLoop: disabled)' } },
  { name: 'Suspended once hibernated',
    object: cluster({ phase: 'Cluster in healthy state', conditions: [{ type: 'cnpg.io/hibernation', status: 'True', reason: 'Hibernated',
      message: 'Cluster has been hibernated' }] }),
    expected: { status: 'Suspended', message: 'Cluster has been hibernated' } },
  { name: 'Progressing while hibernation is under way',
    object: cluster({ phase: 'Cluster in healthy state', conditions: [{ type: 'cnpg.io/hibernation', status: 'False', reason: 'DeletingPods',
      message: 'Hibernation is in progress' }] }),
    expected: { status: 'Progressing', message: 'Hibernation is in progress' } },
]);

test('the Cluster check lists exactly the phase constants of CNPG 1.30 (api/v1/cluster_types.go lines 697-767)', () => {
  const ARGOCD = new ArgoCdInstall(Testing.chart(), 'ArgoCd').healthChecks['resource.customizations.health.postgresql.cnpg.io_Cluster'];
  const listed = [...ARGOCD.matchAll(/^ {2}\["([^"]+)"\] = "(\w+)",$/gm)].map((m) => [m[1], m[2]]);
  expect(listed.sort()).toEqual([...PHASES].sort());
  expect(PHASES).toHaveLength(22);
});
