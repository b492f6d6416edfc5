import { execFileSync } from 'child_process';
import { Testing } from 'cdk8s';
import { ArgoCdInstall } from '../../lib/constructs/argocd/argocd-install';
import { builtinRolloutHealth, HealthResult, taskOutcome } from '../../lib/simulation';
import { findTool, testWith } from '../tools';
const { helperPath } = require('../../scripts/build-lua-health.js') as { helperPath: () => string };

// builtinRolloutHealth models Argo CD v3.5.1's built-in resource_customizations/argoproj.io/Rollout/health.lua.
// tools/lua-health runs Argo CD's own code (util/settings, util/lua, gitops-engine health.GetResourceHealth):
// fed the argocd-cm the install generates, which has no Rollout check, it evaluates that built-in script. Every
// row below must give the same status and message in the model and in the VM. Without the binary (node
// scripts/build-lua-health.js; needs Go) the VM comparisons are skipped, with the reason in their names; the
// model's own expectations always run.
const HELPER = findTool('lua-health (node scripts/build-lua-health.js; needs Go)', [helperPath()], '--version');
const vmTest = testWith(HELPER);
const ARGOCD_CM = new ArgoCdInstall(Testing.chart(), 'ArgoCd').healthChecks;

interface VmHealth { status: string; message: string; error?: string }
function evaluateInArgoCd(objects: Record<string, unknown>[]): VmHealth[] {
  const input = JSON.stringify({ argocdCm: ARGOCD_CM, objects });
  return JSON.parse(execFileSync(HELPER.command!, [], { input }).toString()) as VmHealth[];
}

// --- Rollouts as argo-rollouts v1.9.1 writes them. Status fields: pkg/apis/rollouts/v1alpha1/types.go:930-1014
// (RolloutStatus: observedGeneration is a string, :980; canary and blueGreen are structs, so always serialized,
// :986-989; phase/message :1004-1006), PauseCondition {reason, startTime} :910-913 with the reasons of :898-906,
// phases :916-927, RolloutCondition {type, status, lastUpdateTime, lastTransitionTime, reason, message} :1202-1215.
// Phase and message: utils/rollout/rolloututil.go:133-190 (CalculateRolloutPhase), written with
// observedGeneration by rollout/sync.go:757-758 and :531-533. Condition reasons and messages:
// utils/conditions/conditions.go (RolloutAborted :83-86, RolloutPaused :93-98, ProgressDeadlineExceeded and
// ReplicaSetTimeOutMessage :141-156, NewReplicaSetAvailable :121-124, ReplicaSetCompletedMessage :158, RolloutHealthy :76-79);
// the abort message: rollout/sync.go:607-615 + rollout/analysis.go:431-439 + analysis/analysis.go:504, 667-669.
// Paused conditions: rollout/sync.go:494-516 (checkPausedConditions). kubectl argo rollouts pause patches
// {"spec":{"paused":true}} (pkg/kubectl-argo-rollouts/cmd/pause/pause.go:36); promote patches the status only,
// {"status":{"pauseConditions":null}} (cmd/promote/promote.go:35-41, 118-119), leaving the phase to the controller.
type Obj = Record<string, any>;
const STABLE = '6d4b9c7f8';
const CANARY = '7c9f8d6b5';
const T = '2026-12-01T10:00:00Z';
const cond = (type: string, status: string, reason: string, message: string) =>
  ({ type, status, reason, message, lastUpdateTime: T, lastTransitionTime: T });
const STEPS = [{ setWeight: 20 }, { pause: {} }, { analysis: { templates: [{ templateName: 'success-rate' }] } }, { setWeight: 60 }, { pause: { duration: '2m' } }];
const canarySpec = { replicas: 5, selector: { matchLabels: { app: 'web' } }, strategy: { canary: { canaryService: 'web-canary', stableService: 'web', steps: STEPS } },
  template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'web', image: 'registry.lan/web@sha256:' + 'b'.repeat(64) }] } } };

function rollout(status: Obj | undefined, opts: { generation?: number; spec?: Obj; annotations?: Record<string, string> } = {}): Obj {
  return { apiVersion: 'argoproj.io/v1alpha1', kind: 'Rollout',
    metadata: { name: 'web', namespace: 'web', generation: opts.generation ?? 2, ...(opts.annotations ? { annotations: opts.annotations } : {}) },
    spec: opts.spec ?? canarySpec, ...(status === undefined ? {} : { status }) };
}
/** A v1.9.1 status of generation 2 (revision 2 = the canary) with the given replica counts and extras. */
function status(extra: Obj): Obj {
  return { observedGeneration: '2', HPAReplicas: 5, replicas: 5, readyReplicas: 5, availableReplicas: 5, updatedReplicas: 1,
    currentPodHash: CANARY, stableRS: STABLE, currentStepHash: '5f8d4b6c9', selector: 'app=web', canary: {}, blueGreen: {}, ...extra };
}
const available = cond('Available', 'True', 'AvailableReason', 'Rollout has minimum availability');
const notCompleted = cond('Completed', 'False', 'RolloutCompleted', 'RolloutCompleted');
const paused = [cond('Progressing', 'Unknown', 'RolloutPaused', 'Rollout is paused'), cond('Paused', 'True', 'RolloutPaused', 'Rollout is paused'), available, notCompleted];
const ABORT = 'Rollout aborted update to revision 2: Step-based analysis phase error/failed: '
  + 'Metric "success-rate" assessed Failed due to failed (1) > failureLimit (0)';
const TIMEOUT = `ReplicaSet "web-${CANARY}" has timed out progressing.`;

interface Row { name: string; object: Obj; expected: HealthResult; luaError?: true }
const ROWS: Row[] = [
  // Generation not yet observed (health.lua:57-86).
  { name: 'a new Rollout before the controller writes a status', object: rollout(undefined),
    expected: { status: 'Progressing', message: 'Waiting for rollout spec update to be observed' } },
  { name: 'a new image in git: the old Healthy phase is not trusted until generation 3 is observed',
    object: rollout(status({ phase: 'Healthy', updatedReplicas: 5, currentPodHash: STABLE }), { generation: 3 }),
    expected: { status: 'Progressing', message: 'Waiting for rollout spec update to be observed' } },
  { name: 'spec.paused just set (kubectl argo rollouts pause bumps the generation), not yet observed',
    object: rollout(status({ phase: 'Progressing', message: 'more replicas need to be updated' }), { generation: 3, spec: { ...canarySpec, paused: true } }),
    expected: { status: 'Progressing', message: 'Waiting for rollout spec update to be observed' } },
  { name: 'a workloadRef Rollout whose Deployment changed (workload-generation annotation ahead of the status)',
    object: rollout(status({ phase: 'Healthy', workloadObservedGeneration: '4' }),
      { spec: { ...canarySpec, template: undefined, workloadRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web' } },
        annotations: { 'rollout.argoproj.io/workload-generation': '5' } }),
    expected: { status: 'Progressing', message: 'Waiting for rollout spec update to be observed' } },
  { name: 'a non-numeric observedGeneration (a v0.9 hash) counts as observed',
    object: rollout(status({ observedGeneration: '5c4b8f9d7', phase: 'Healthy' })), expected: { status: 'Healthy', message: '' } },

  // status.phase, as v1.9.1 always writes it (health.lua:88-98).
  { name: 'a canary paused at its indefinite pause step is Suspended, message CanaryPauseStep',
    object: rollout(status({ phase: 'Paused', message: 'CanaryPauseStep', currentStepIndex: 1, controllerPause: true,
      pauseConditions: [{ reason: 'CanaryPauseStep', startTime: T }], conditions: paused })),
    expected: { status: 'Suspended', message: 'CanaryPauseStep' } },
  { name: 'spec.paused (observed) is Suspended, message "manually paused"',
    object: rollout(status({ phase: 'Paused', message: 'manually paused', currentStepIndex: 0, conditions: paused }), { spec: { ...canarySpec, paused: true } }),
    expected: { status: 'Suspended', message: 'manually paused' } },
  { name: 'an inconclusive analysis pauses: Suspended, message InconclusiveAnalysisRun',
    object: rollout(status({ phase: 'Paused', message: 'InconclusiveAnalysisRun', currentStepIndex: 2, controllerPause: true,
      pauseConditions: [{ reason: 'InconclusiveAnalysisRun', startTime: T }], conditions: paused })),
    expected: { status: 'Suspended', message: 'InconclusiveAnalysisRun' } },
  { name: 'promoted (kubectl argo rollouts promote cleared pauseConditions) but not reconciled: still Suspended, the Lua ignores controllerPause',
    object: rollout(status({ phase: 'Paused', message: 'CanaryPauseStep', currentStepIndex: 1, controllerPause: true, conditions: paused })),
    expected: { status: 'Suspended', message: 'CanaryPauseStep' } },
  { name: 'aborted by a failed step analysis is Degraded with the abort message',
    object: rollout(status({ phase: 'Degraded', message: `RolloutAborted: ${ABORT}`, abort: true, abortedAt: T, currentStepIndex: 0, updatedReplicas: 0,
      conditions: [cond('Progressing', 'False', 'RolloutAborted', ABORT), cond('Paused', 'False', 'RolloutPaused', 'Rollout is paused'), available, notCompleted] })),
    expected: { status: 'Degraded', message: `RolloutAborted: ${ABORT}` } },
  { name: 'a canary past its progress deadline is Degraded, ProgressDeadlineExceeded',
    object: rollout(status({ phase: 'Degraded', message: `ProgressDeadlineExceeded: ${TIMEOUT}`, currentStepIndex: 0, availableReplicas: 4,
      conditions: [cond('Progressing', 'False', 'ProgressDeadlineExceeded', TIMEOUT), available, notCompleted] })),
    expected: { status: 'Degraded', message: `ProgressDeadlineExceeded: ${TIMEOUT}` } },
  { name: 'mid-update at setWeight 20 (1 of 5 updated) is Progressing',
    object: rollout(status({ phase: 'Progressing', message: 'more replicas need to be updated', currentStepIndex: 0,
      conditions: [cond('Progressing', 'True', 'ReplicaSetUpdated', `ReplicaSet "web-${CANARY}" is progressing.`), available, notCompleted] })),
    expected: { status: 'Progressing', message: 'more replicas need to be updated' } },
  { name: 'all steps done, old replicas still terminating, is Progressing',
    object: rollout(status({ phase: 'Progressing', message: 'old replicas are pending termination', replicas: 6, updatedReplicas: 5, currentStepIndex: 5 })),
    expected: { status: 'Progressing', message: 'old replicas are pending termination' } },
  { name: 'promoted and stable is Healthy with no message',
    object: rollout(status({ phase: 'Healthy', updatedReplicas: 5, currentPodHash: CANARY, stableRS: CANARY, currentStepIndex: 5,
      conditions: [available, cond('Completed', 'True', 'RolloutCompleted', 'RolloutCompleted'), cond('Healthy', 'True', 'RolloutHealthy', 'Rollout is healthy'),
        cond('Progressing', 'True', 'NewReplicaSetAvailable', `ReplicaSet "web-${CANARY}" has successfully progressed.`)] })),
    expected: { status: 'Healthy', message: '' } },
  { name: 'a phase that is no health code (none in v1.9.1) is Unknown',
    object: rollout(status({ phase: 'Waiting', message: 'x' })), expected: { status: 'Unknown', message: 'Lua returned an invalid health status' } },

  // Without status.phase (Rollouts < 1.0), the Lua derives health itself (health.lua:100-165).
  ...(([
    ['InvalidSpec is Degraded with the condition message', { conditions: [cond('InvalidSpec', 'True', 'InvalidSpec', 'The Rollout "web" is invalid')] },
      { status: 'Degraded', message: 'The Rollout "web" is invalid' }],
    ['an abort condition is Degraded with its message', { conditions: [cond('Progressing', 'False', 'RolloutAborted', 'Rollout aborted update to revision 2')] },
      { status: 'Degraded', message: 'Rollout aborted update to revision 2' }],
    ['a progress deadline condition is Degraded with its message', { conditions: [cond('Progressing', 'False', 'ProgressDeadlineExceeded', TIMEOUT)] },
      { status: 'Degraded', message: TIMEOUT }],
    ['pause conditions are Suspended "Rollout is paused"', { conditions: [], pauseConditions: [{ reason: 'CanaryPauseStep', startTime: T }] },
      { status: 'Suspended', message: 'Rollout is paused' }],
    ['no currentPodHash is Progressing', { conditions: [], currentPodHash: undefined },
      { status: 'Progressing', message: 'Waiting for rollout to finish: status has not been reconciled.' }],
    ['fewer updated than desired replicas is Progressing', { conditions: [] },
      { status: 'Progressing', message: 'Waiting for roll out to finish: More replicas need to be updated' }],
    ['updated replicas not yet available is Progressing', { conditions: [], updatedReplicas: 5, availableReplicas: 4 },
      { status: 'Progressing', message: 'Waiting for roll out to finish: updated replicas are still becoming available' }],
    ['old canary replicas pending termination is Progressing', { conditions: [], replicas: 6, updatedReplicas: 5 },
      { status: 'Progressing', message: 'Waiting for roll out to finish: old replicas are pending termination' }],
    ['a stable ReplicaSet other than the current one is Progressing', { conditions: [], updatedReplicas: 5 },
      { status: 'Progressing', message: 'Waiting for rollout to finish steps' }],
    ['the deprecated status.canary.stableRS is read when status.stableRS is absent', { conditions: [], updatedReplicas: 5, stableRS: undefined, canary: { stableRS: CANARY } },
      { status: 'Healthy', message: '' }],
    ['an empty status.canary without stableRS is Progressing', { conditions: [], updatedReplicas: 5, stableRS: undefined },
      { status: 'Progressing', message: 'Waiting for rollout to finish steps' }],
    ['all updated, stable = current is Healthy', { conditions: [], updatedReplicas: 5, stableRS: CANARY }, { status: 'Healthy', message: '' }],
  ] as [string, Obj, HealthResult][]).map(([name, extra, expected]): Row => ({ name: `without a phase: ${name}`, object: rollout(status(extra)), expected }))),
  { name: 'without a phase: spec.paused is Suspended "Rollout is paused"',
    object: rollout(status({ conditions: [] }), { spec: { ...canarySpec, paused: true } }), expected: { status: 'Suspended', message: 'Rollout is paused' } },
  ...(([
    ['an active selector other than the current hash is Progressing', { blueGreen: { activeSelector: STABLE } }, { status: 'Progressing', message: 'active service cutover pending' }],
    ['a stable ReplicaSet behind the active one is Progressing', { blueGreen: { activeSelector: CANARY } }, { status: 'Progressing', message: 'waiting for analysis to complete' }],
    ['no stableRS (status.canary is always serialized, its stableRS nil) is Progressing: nil is not ""',
      { blueGreen: { activeSelector: CANARY }, stableRS: undefined }, { status: 'Progressing', message: 'waiting for analysis to complete' }],
    ['active and stable at the current hash is Healthy', { blueGreen: { activeSelector: CANARY }, stableRS: CANARY }, { status: 'Healthy', message: '' }],
  ] as [string, Obj, HealthResult][]).map(([name, extra, expected]): Row => ({ name: `without a phase, blue-green: ${name}`,
    object: rollout(status({ conditions: [], updatedReplicas: 5, ...extra }), { spec: { ...canarySpec, strategy: { blueGreen: { activeService: 'web' } } } }), expected }))),

  // Where the Lua raises an error, Argo CD reports Unknown with it (gitops-engine/pkg/health/health.go:78-85).
  { name: 'a status with neither phase nor conditions is a Lua error (ipairs of nil)', object: rollout({ observedGeneration: '2' }), luaError: true,
    expected: { status: 'Unknown', message: '<string>:100: bad argument #1 to ipairs (table expected, got nil)' } },
  { name: 'a numeric observedGeneration without metadata.generation is a Lua error',
    object: { ...rollout(status({ phase: 'Healthy' })), metadata: { name: 'web', namespace: 'web' } }, luaError: true,
    expected: { status: 'Unknown', message: '<string>:62: attempt to compare nil with number' } },
];

// JSON drops undefined fields, as the API server would never send them.
const OBJECTS = ROWS.map((r) => JSON.parse(JSON.stringify(r.object)) as Obj);

test('argocd-cm has no Rollout check of its own, so Argo CD uses its built-in one (the model)', () => {
  const keys = Object.keys(ARGOCD_CM).filter((k) => k.startsWith('resource.customizations.health.'));
  expect(keys.filter((k) => k.includes('Rollout') || k.includes('*'))).toEqual([]);
});

describe('builtinRolloutHealth: Argo CD v3.5.1 Rollout/health.lua on Rollouts v1.9.1 statuses', () => {
  ROWS.forEach((r, i) => test(r.name, () => expect(builtinRolloutHealth(OBJECTS[i])).toEqual(r.expected)));
});

describe('builtinRolloutHealth agrees with Argo CD v3.5.1\'s own Lua VM, status and message', () => {
  let vm: VmHealth[] = [];
  beforeAll(() => {
    if (HELPER.command !== undefined) vm = evaluateInArgoCd(OBJECTS);
  });
  ROWS.forEach((r, i) => vmTest(r.name, () => {
    const { error, ...health } = vm[i];
    expect(health).toEqual(builtinRolloutHealth(OBJECTS[i]));
    // Only the rows that say so end in a Lua error.
    expect(error !== undefined).toBe(r.luaError === true);
  }));
});

// What a sync sees. Inside the canary app's own sync a non-hook resource is done only when Healthy and failed only
// when Degraded (taskOutcome, gitops-engine/pkg/sync/sync_context.go:552-568): a paused canary keeps a multi-step
// sync running. Across apps, the root's wave gate is the child Application's health from the generated
// argoproj.io_Application check, which counts a Synced child whose worst resource is Suspended as Healthy.
describe('a root sync wave over an Application whose Rollout is paused or aborted', () => {
  const pausedRollout = OBJECTS[ROWS.findIndex((r) => r.name.startsWith('a canary paused at its indefinite pause step'))];
  const abortedRollout = OBJECTS[ROWS.findIndex((r) => r.name.startsWith('aborted by a failed step analysis'))];
  /** The child Application as Argo CD persists it: Synced, app health = its only resource's health. */
  function childApp(rolloutHealth: HealthResult): Obj {
    const source = { repoURL: 'git@github.com:o/homelab.git', path: 'apps/web', targetRevision: 'main' };
    const destination = { server: 'https://kubernetes.default.svc', namespace: 'web' };
    return { apiVersion: 'argoproj.io/v1alpha1', kind: 'Application', metadata: { name: 'web', namespace: 'argocd' },
      spec: { project: 'homelab', source, destination },
      status: { sync: { status: 'Synced', comparedTo: { source, destination }, revision: 'a'.repeat(40) },
        health: { status: rolloutHealth.status },
        resources: [{ group: 'argoproj.io', version: 'v1alpha1', kind: 'Rollout', namespace: 'web', name: 'web', status: 'Synced',
          health: rolloutHealth }] } };
  }
  let vm: VmHealth[] = [];
  beforeAll(() => {
    if (HELPER.command === undefined) return;
    vm = evaluateInArgoCd([childApp(builtinRolloutHealth(pausedRollout)), childApp(builtinRolloutHealth(abortedRollout))]);
  });

  test('inside the canary app\'s own sync: paused keeps the task running, aborted fails it', () => {
    expect(taskOutcome(pausedRollout, builtinRolloutHealth(pausedRollout))).toBe('running');
    expect(taskOutcome(abortedRollout, builtinRolloutHealth(abortedRollout))).toBe('failed');
  });
  vmTest('paused: the root sees the child Healthy, so its later waves proceed', () => {
    expect(vm[0]).toEqual({ status: 'Healthy',
      message: 'Suspended: synced, and every resource is healthy or deliberately paused; counted as done for its sync wave' });
    expect(taskOutcome(childApp(builtinRolloutHealth(pausedRollout)), vm[0] as HealthResult)).toBe('succeeded');
  });
  vmTest('aborted: the root sees the child Degraded with the abort message, so its sync fails at that wave', () => {
    expect(vm[1]).toEqual({ status: 'Degraded', message: `Synced, health Degraded (Rollout web/web: RolloutAborted: ${ABORT})` });
    expect(taskOutcome(childApp(builtinRolloutHealth(abortedRollout)), vm[1] as HealthResult)).toBe('failed');
  });
});
