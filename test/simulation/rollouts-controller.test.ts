import { execFileSync } from 'child_process';
import { Testing } from 'cdk8s';
import { ArgoCdInstall } from '../../lib/constructs/argocd/argocd-install';
import { findTool, testWith } from '../tools';
import {
  ANALYSIS_JOB_SECONDS, assessRun, builtinRolloutHealth, calculateRolloutPhase, CANARY_PODS_SECONDS, canaryReplicaCounts, Faults, ROLLOUT_SECONDS,
  World,
} from '../../lib/simulation';

type Obj = Record<string, any>;

// The scripted controller against argo-rollouts v1.9.1 (rollout/canary.go, rollout/sync.go, rollout/analysis.go,
// analysis/analysis.go, utils/rollout/rolloututil.go, utils/conditions/conditions.go): the status it writes, read by
// the model of Argo CD v3.5.1's built-in Rollout health (proven against Argo CD's Lua VM in rollout-health.test.ts).

const NS = 'web';
const IMAGE = 'registry.lan/web:main';
const STEPS = [{ setWeight: 20 }, { pause: {} }, { analysis: { templates: [{ templateName: 'success-rate' }] } }, { setWeight: 60 }, { pause: { duration: '2m' } }];
const ABORT = 'Rollout aborted update to revision 2: Step-based analysis phase error/failed: '
  + 'Metric "success-rate" assessed Failed due to failed (2) > failureLimit (1)';

function rollout(image: string, steps: readonly Obj[] = STEPS, extra: Obj = {}): Obj {
  return { apiVersion: 'argoproj.io/v1alpha1', kind: 'Rollout', metadata: { name: 'web', namespace: NS },
    spec: { replicas: 5, selector: { matchLabels: { app: 'web' } }, ...extra,
      strategy: { canary: { stableService: 'web', canaryService: 'web-canary', steps } },
      template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'web', image }] } } } };
}
const service = (name: string) => ({ apiVersion: 'v1', kind: 'Service', metadata: { name, namespace: NS }, spec: { selector: { app: 'web' } } });
const template = { apiVersion: 'argoproj.io/v1alpha1', kind: 'AnalysisTemplate', metadata: { name: 'success-rate', namespace: NS },
  spec: { metrics: [{ name: 'success-rate', interval: '1m', count: 5, failureLimit: 1, provider: { prometheus: { address: 'http://p:9090', query: 'q' } } }] } };
const controller = { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'argo-rollouts', namespace: 'argo-rollouts' }, spec: { replicas: 1 } };

/** A World with the controller running and the Rollout's Services and template applied, at time `now`. */
type Cluster = { world: World; at: (t: number) => void; log: string[] };
function cluster(faults: Faults = {}, opts: { controller?: boolean; template?: boolean } = {}): Cluster {
  const world = new World(faults);
  const log: string[] = [];
  world.log = (source, message) => log.push(`${source}: ${message}`);
  if (opts.controller ?? true) world.apply(controller, 0);
  for (const o of [service('web'), service('web-canary'), ...(opts.template ?? true ? [template] : [])]) world.apply(o, 0);
  world.reconcile(ROLLOUT_SECONDS); // the controller's own Deployment is available
  let clock = ROLLOUT_SECONDS;
  const at = (t: number) => {
    for (; clock < t; clock += 5) world.reconcile(clock + 5);
  };
  return { world, at, log };
}
const live = (world: World) => world.view(world.get('Rollout', NS, 'web')!);
const health = (world: World) => builtinRolloutHealth(live(world));
const condition = (obj: Obj, type: string) => (obj.status.conditions as Obj[]).find((c) => c.type === type);

describe('on creation: straight to full scale, no canary steps (docs/FAQ.md; sync.go:939-942 "Initial deploy")', () => {
  test('Progressing while the pods start, then Healthy with every step counted done', () => {
    // GIVEN
    const { world, at, log } = cluster();
    world.apply(rollout(IMAGE), 40);
    // WHEN
    at(45);
    // THEN
    expect(health(world)).toEqual({ status: 'Progressing', message: 'updated replicas are still becoming available' });
    at(45 + CANARY_PODS_SECONDS);
    const st = live(world).status;
    expect(health(world)).toEqual({ status: 'Healthy', message: '' });
    expect(st).toMatchObject({ observedGeneration: '1', replicas: 5, updatedReplicas: 5, availableReplicas: 5, currentStepIndex: STEPS.length,
      stableRS: st.currentPodHash, phase: 'Healthy', message: '' });
    expect(condition(live(world), 'Completed')).toMatchObject({ status: 'True', reason: 'RolloutCompleted' });
    expect(condition(live(world), 'Healthy')).toMatchObject({ status: 'True', reason: 'RolloutHealthy', message: 'Rollout is healthy' });
    expect(log.filter((l) => l.includes('Rollout step'))).toEqual([]);
  });

  test('without a running controller a Rollout has no status: Argo CD waits for the spec to be observed', () => {
    const { world, at } = cluster({}, { controller: false });
    world.apply(rollout(IMAGE), 40);
    at(600);
    expect(live(world).status).toBeUndefined();
    expect(health(world)).toEqual({ status: 'Progressing', message: 'Waiting for rollout spec update to be observed' });
  });

  test('a step names an AnalysisTemplate that does not exist: InvalidSpec, Degraded with the field error', () => {
    const { world, at } = cluster({}, { template: false });
    world.apply(rollout(IMAGE), 40);
    at(60);
    expect(health(world)).toEqual({ status: 'Degraded', message: 'InvalidSpec: The Rollout "web" is invalid: '
      + 'spec.strategy.canary.steps[2].analysis.templates: Invalid value: "success-rate": AnalysisTemplate \'success-rate\' not found' });
    // The controller retries; once the template exists the Rollout is reconciled as usual.
    world.apply(template, 60);
    at(60 + 5 + CANARY_PODS_SECONDS);
    expect(health(world)).toEqual({ status: 'Healthy', message: '' });
    expect(condition(live(world), 'InvalidSpec')).toBeUndefined();
  });
});

describe('a new pod template walks the canary steps (canary.go:346-420)', () => {
  function updated(faults: Faults = {}, steps: readonly Obj[] = STEPS) {
    const c = cluster(faults);
    c.world.apply(rollout(IMAGE, steps), 40);
    c.at(100);
    c.world.apply(rollout('registry.lan/web:main@sha256:' + 'a'.repeat(64), steps), 100);
    return c;
  }

  test('setWeight 20 of 5 replicas: one canary pod, Progressing "more replicas need to be updated"', () => {
    const { world, at } = updated();
    at(105);
    const st = live(world).status;
    expect(live(world).metadata.generation).toBe(2);
    expect(st).toMatchObject({ observedGeneration: '2', currentStepIndex: 0, updatedReplicas: 1, replicas: 5 });
    expect(st.stableRS).not.toBe(st.currentPodHash);
    expect(health(world)).toEqual({ status: 'Progressing', message: 'more replicas need to be updated' });
  });

  test('an indefinite pause: Paused / CanaryPauseStep, which Argo CD reports as Suspended, for as long as nobody promotes', () => {
    const { world, at, log } = updated();
    at(100 + 6 * 3600);
    const st = live(world).status;
    expect(st).toMatchObject({ phase: 'Paused', message: 'CanaryPauseStep', currentStepIndex: 1, controllerPause: true });
    expect(st.pauseConditions).toEqual([{ reason: 'CanaryPauseStep', startTime: expect.any(String) }]);
    expect(condition(live(world), 'Progressing')).toMatchObject({ status: 'Unknown', reason: 'RolloutPaused', message: 'Rollout is paused' });
    expect(condition(live(world), 'Paused')).toMatchObject({ status: 'True', reason: 'RolloutPaused' });
    expect(health(world)).toEqual({ status: 'Suspended', message: 'CanaryPauseStep' });
    expect(log.filter((l) => l.includes('Rollout step'))).toEqual(['argo-rollouts: Rollout web/web: Rollout step 1/5 completed (setWeight: 20)']);
    expect(world.settling()).toEqual([]);
  });

  test('a timed pause is Suspended too, then continues by itself', () => {
    const steps = [{ setWeight: 20 }, { pause: { duration: '1m' } }, { setWeight: 60 }];
    const { world, at } = updated({}, steps);
    at(100 + CANARY_PODS_SECONDS + 30);
    expect(health(world)).toEqual({ status: 'Suspended', message: 'CanaryPauseStep' });
    expect(world.settling()).toEqual(['Rollout web/web at step 2']);
    at(100 + CANARY_PODS_SECONDS + 70);
    expect(live(world).status).toMatchObject({ currentStepIndex: 2, phase: 'Progressing' });
    expect(live(world).status.pauseConditions).toBeUndefined();
    expect(condition(live(world), 'Paused')).toMatchObject({ status: 'False' });
  });

  test('analysis passes, every step completes: promoted, Healthy with the new ReplicaSet stable', () => {
    const steps = (STEPS as Obj[]).filter((s) => !(s.pause !== undefined && s.pause.duration === undefined));
    const { world, at, log } = updated({}, steps);
    at(2000);
    const st = live(world).status;
    expect(st).toMatchObject({ phase: 'Healthy', currentStepIndex: steps.length, updatedReplicas: 5, availableReplicas: 5 });
    expect(st.stableRS).toBe(st.currentPodHash);
    expect(health(world)).toEqual({ status: 'Healthy', message: '' });
    const run = world.list('AnalysisRun')[0];
    expect(run.manifest.metadata.name).toBe(`web-${st.currentPodHash}-2-1`); // <rollout>-<podHash>-<revision>-<stepIndex>
    expect(run.status).toMatchObject({ phase: 'Successful' });
    expect(log.filter((l) => l.includes('Rollout step')).map((l) => l.replace(/.*completed /, ''))).toEqual(
      ['(setWeight: 20)', '(analysis)', '(setWeight: 60)', '(pause: 2m)']);
    expect(log).toContain(`argo-rollouts: Rollout web/web: Rollout completed update to revision 2 (${st.currentPodHash}): Completed all 4 canary steps`);
  });

  test('analysis fails: aborted, Degraded with the message Rollouts writes, traffic back on the stable pods', () => {
    const steps = [{ setWeight: 20 }, { analysis: { templates: [{ templateName: 'success-rate' }] } }, { setWeight: 60 }];
    const { world, at } = updated({ failingAnalyses: [{ namespace: NS, rollout: 'web', metric: 'success-rate' }] }, steps);
    // failureLimit 1: the second measurement (one interval after the first) fails the metric.
    at(100 + CANARY_PODS_SECONDS + 60 + 5);
    const st = live(world).status;
    expect(st).toMatchObject({ abort: true, abortedAt: expect.any(String), currentStepIndex: 0, updatedReplicas: 0, availableReplicas: 5,
      phase: 'Degraded', message: `RolloutAborted: ${ABORT}` });
    expect(st.stableRS).not.toBe(st.currentPodHash);
    expect(condition(live(world), 'Progressing')).toMatchObject({ status: 'False', reason: 'RolloutAborted', message: ABORT });
    expect(condition(live(world), 'Completed')).toMatchObject({ status: 'False' });
    expect(st.canary.currentStepAnalysisRunStatus).toMatchObject({ status: 'Failed', message: 'Metric "success-rate" assessed Failed due to failed (2) > failureLimit (1)' });
    expect(health(world)).toEqual({ status: 'Degraded', message: `RolloutAborted: ${ABORT}` });
    expect(world.problems()).toEqual([`Rollout web/web: Degraded: RolloutAborted: ${ABORT}`,
      `AnalysisRun web/${st.canary.currentStepAnalysisRunStatus.name}: Failed: Metric "success-rate" assessed Failed due to failed (2) > failureLimit (1)`]);
    // Aborted stays aborted: nothing in git changed, so nothing retries (docs/FAQ.md "Rollbacks").
    at(100 + 3600);
    expect(health(world).status).toBe('Degraded');
    expect(world.settling()).toEqual([]);
  });

  test('an inconclusive analysis pauses: Paused / InconclusiveAnalysisRun (analysis.go:432-433)', () => {
    const steps = [{ setWeight: 20 }, { analysis: { templates: [{ templateName: 'success-rate' }] } }, { setWeight: 60 }];
    const { world, at } = updated({ inconclusiveAnalyses: [{ namespace: NS, rollout: 'web' }] }, steps);
    at(100 + 600);
    expect(health(world)).toEqual({ status: 'Suspended', message: 'InconclusiveAnalysisRun' });
    expect(live(world).status.pauseConditions).toEqual([{ reason: 'InconclusiveAnalysisRun', startTime: expect.any(String) }]);
  });

  test('going back to the stable template skips the steps (canary.go:364-367)', () => {
    const { world, at } = updated();
    at(300);
    expect(health(world).status).toBe('Suspended');
    world.apply(rollout(IMAGE), 300);
    at(300 + 5 + CANARY_PODS_SECONDS);
    expect(health(world)).toEqual({ status: 'Healthy', message: '' });
    expect(live(world).status.currentStepIndex).toBe(STEPS.length);
  });
});

describe('calculateRolloutPhase (utils/rollout/rolloututil.go:133-190), read by Argo CD\'s built-in Rollout health', () => {
  const spec = rollout(IMAGE).spec;
  const base = { replicas: 5, updatedReplicas: 5, availableReplicas: 5, stableRS: 'a', currentPodHash: 'a' };
  test.each([
    ['an abort condition', { conditions: [{ type: 'Progressing', status: 'False', reason: 'RolloutAborted', message: 'm' }] }, 'Degraded', 'RolloutAborted: m'],
    ['a pause condition', { pauseConditions: [{ reason: 'CanaryPauseStep' }] }, 'Paused', 'CanaryPauseStep'],
    ['fewer updated replicas', { updatedReplicas: 1 }, 'Progressing', 'more replicas need to be updated'],
    ['old replicas still running', { replicas: 6 }, 'Progressing', 'old replicas are pending termination'],
    ['a stable ReplicaSet other than the current', { stableRS: 'b' }, 'Progressing', 'waiting for all steps to complete'],
    ['all done', {}, 'Healthy', ''],
  ])('%s', (_name, extra, phase, message) => {
    expect(calculateRolloutPhase(spec, { ...base, ...extra })).toEqual({ phase, message });
  });
  test('spec.paused wins over pause conditions: "manually paused"', () => {
    expect(calculateRolloutPhase({ ...spec, paused: true }, { ...base, pauseConditions: [{ reason: 'CanaryPauseStep' }] }))
      .toEqual({ phase: 'Paused', message: 'manually paused' });
  });
});

describe('replica weights without a traffic router (approximateWeightedCanaryStableReplicaCounts, utils/replicaset/canary.go)', () => {
  test.each([
    // docs/features/canary/index.md: 10 replicas at 10% is 1 canary and 9 stable pods.
    [10, 10, 3, [1, 9]],
    [5, 20, 2, [1, 4]],
    [5, 60, 2, [3, 2]],
    // 2 replicas at 20%: one canary pod, and a surge pod keeps two stable ones (1 of 3 is nearer 20% than 1 of 2).
    [2, 20, 1, [1, 2]],
    [5, 100, 2, [5, 0]],
    [5, 0, 2, [0, 5]],
  ])('%i replicas at %i%% (maxSurge %i): %j', (replicas, weight, surge, expected) => {
    expect(canaryReplicaCounts(replicas, weight, surge)).toEqual(expected);
  });
});

describe('AnalysisRun assessment (analysis/analysis.go:440-687)', () => {
  const prometheus = { prometheus: { address: 'http://p:9090', query: 'q' } };
  const metric = (extra: Obj) => ({ name: 'm', provider: prometheus, ...extra });
  const ok = () => 'Successful' as const;
  const failing = () => 'Failed' as const;

  test('count 5 every minute, all good: Running until the fifth measurement, then Successful', () => {
    const m = [metric({ interval: '1m', count: 5 })];
    expect(assessRun(m, 0, 239, ok).phase).toBe('Running');
    expect(assessRun(m, 0, 240, ok)).toMatchObject({ phase: 'Successful', message: '' });
  });
  test('failureLimit 1: Failed at the second failed measurement, with the run message', () => {
    const m = [metric({ interval: '1m', count: 5, failureLimit: 1 })];
    expect(assessRun(m, 0, 59, failing).phase).toBe('Running');
    expect(assessRun(m, 0, 60, failing)).toMatchObject({ phase: 'Failed', message: 'Metric "m" assessed Failed due to failed (2) > failureLimit (1)' });
  });
  test('no interval: one measurement; failureLimit defaults to 0', () => {
    expect(assessRun([metric({})], 0, 0, failing)).toMatchObject({ phase: 'Failed', message: 'Metric "m" assessed Failed due to failed (1) > failureLimit (0)' });
  });
  test('failureLimit -1 disables the failure check: the metric succeeds at its count', () => {
    expect(assessRun([metric({ interval: '1m', count: 3, failureLimit: -1 })], 0, 120, failing).phase).toBe('Successful');
  });
  test('an interval without a count runs until it fails', () => {
    expect(assessRun([metric({ interval: '1m' })], 0, 30 * 24 * 3600, ok).phase).toBe('Running');
  });
  test('a Job measurement (the E2E suite) takes the Job\'s run time', () => {
    const job = [{ name: 'e2e', provider: { job: { spec: {} } } }];
    expect(assessRun(job, 0, ANALYSIS_JOB_SECONDS - 1, ok).phase).toBe('Running');
    expect(assessRun(job, 0, ANALYSIS_JOB_SECONDS, failing)).toMatchObject({ phase: 'Failed', message: 'Metric "e2e" assessed Failed due to failed (1) > failureLimit (0)' });
  });
  test('a failing metric terminates the run while another still runs; the run is Failed with the failing metric\'s message', () => {
    const metrics = [metric({ name: 'latency', interval: '1m', count: 10 }), metric({ name: 'errors' })];
    const r = assessRun(metrics, 0, 0, (name) => (name === 'errors' ? 'Failed' : 'Successful'));
    expect(r).toMatchObject({ phase: 'Failed', message: 'Metric "errors" assessed Failed due to failed (1) > failureLimit (0)' });
    expect(r.metricResults).toEqual([{ name: 'latency', phase: 'Successful', count: 1 }, { name: 'errors', phase: 'Failed', count: 1, failed: 1 }]);
  });
  test('inconclusive measurements over inconclusiveLimit: Inconclusive', () => {
    expect(assessRun([metric({})], 0, 0, () => 'Inconclusive'))
      .toMatchObject({ phase: 'Inconclusive', message: 'Metric "m" assessed Inconclusive due to inconclusive (1) > inconclusiveLimit (0)' });
  });
});

// Every status above, as the controller wrote it, through Argo CD v3.5.1's own code (tools/lua-health: util/lua and
// gitops-engine's health, fed the generated argocd-cm, which has no Rollout check, so the built-in script runs).
const { helperPath } = require('../../scripts/build-lua-health.js') as { helperPath: () => string };
const HELPER = findTool('lua-health (node scripts/build-lua-health.js; needs Go)', [helperPath()], '--version');
describe('the statuses the controller writes, read by Argo CD v3.5.1\'s own Lua VM', () => {
  const moments: [string, () => Obj, string][] = [];
  const snapshot = (name: string, world: World, expected: string) => {
    const obj = JSON.parse(JSON.stringify(live(world))) as Obj;
    moments.push([name, () => obj, expected]);
  };
  {
    const { world, at } = cluster();
    world.apply(rollout(IMAGE), 40);
    at(45);
    snapshot('created, pods starting', world, 'Progressing');
    at(45 + CANARY_PODS_SECONDS);
    snapshot('created, all pods available', world, 'Healthy');
    world.apply(rollout(`${IMAGE}@sha256:${'a'.repeat(64)}`), 100);
    at(105);
    snapshot('new template at setWeight 20', world, 'Progressing');
    at(400);
    snapshot('at the indefinite pause', world, 'Suspended');
  }
  {
    const steps = [{ setWeight: 20 }, { analysis: { templates: [{ templateName: 'success-rate' }] } }];
    const failing = cluster({ failingAnalyses: [{ namespace: NS, rollout: 'web' }] });
    failing.world.apply(rollout(IMAGE, steps), 40);
    failing.at(100);
    failing.world.apply(rollout(`${IMAGE}@sha256:${'a'.repeat(64)}`, steps), 100);
    failing.at(400);
    snapshot('aborted', failing.world, 'Degraded');
    const unsure = cluster({ inconclusiveAnalyses: [{ namespace: NS, rollout: 'web' }] });
    unsure.world.apply(rollout(IMAGE, steps), 40);
    unsure.at(100);
    unsure.world.apply(rollout(`${IMAGE}@sha256:${'a'.repeat(64)}`, steps), 100);
    unsure.at(400);
    snapshot('inconclusive', unsure.world, 'Suspended');
    const passing = cluster();
    passing.world.apply(rollout(IMAGE, steps), 40);
    passing.at(100);
    passing.world.apply(rollout(`${IMAGE}@sha256:${'a'.repeat(64)}`, steps), 100);
    passing.at(700);
    snapshot('promoted', passing.world, 'Healthy');
    const invalid = cluster({}, { template: false });
    invalid.world.apply(rollout(IMAGE, steps), 40);
    invalid.at(60);
    snapshot('invalid spec', invalid.world, 'Degraded');
  }
  let vm: { status: string; message: string }[] = [];
  beforeAll(() => {
    if (HELPER.command === undefined) return;
    const argocdCm = new ArgoCdInstall(Testing.chart(), 'ArgoCd').healthChecks;
    const input = JSON.stringify({ argocdCm, objects: moments.map(([, obj]) => obj()) });
    vm = JSON.parse(execFileSync(HELPER.command, [], { input }).toString()) as { status: string; message: string }[];
  });
  moments.forEach(([name, obj, expected], i) => {
    test(`${name}: ${expected} in the model`, () => expect(builtinRolloutHealth(obj()).status).toBe(expected));
    testWith(HELPER)(`${name}: the same status and message in Argo CD's VM`, () => {
      const { status, message } = vm[i];
      expect({ status, message }).toEqual(builtinRolloutHealth(obj()));
    });
  });
});
