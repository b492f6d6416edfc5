import { REFERENCE_HOMELAB } from '../../lib/config/defaults';
import { planSteps } from '../../lib/output/render-steps';
import {
  adoptedAppOverlays, appOverlayFiles, applicationObjects, controllerSyncTimeout, expectedStates, Lua51HealthEvaluator, Scenario,
  ScenarioOutcome, scenariosFor, simulateScenario, SimulationInput, TimelineEvent,
} from '../../lib/simulation';
import { synthesizeHomelab } from '../../lib/synth/synthesize-homelab';
import { findTool, testWith } from '../tools';
import { CANARY_APP, CANARY_IMAGE, DEFAULT_STEPS, MANUAL_GATE_STEPS, withCanaryApp } from './canary-fixture';

// The bring-up simulation of a canary app (issue 15): the first bring-up creates the Rollout, Image Updater's
// write-back of a new digest (.argocd-source-web.yaml in the app's own directory) is the commit between the runs,
// and the second bring-up syncs it while the scripted Argo Rollouts walks the canary. The fixture writes the app into
// wave 4 by hand (a generated app sits in the app tier, after wave 8), so that "later waves proceed" can be seen.
const lua = findTool('lua5.1', ['lua5.1'], '-v');
const luaTest = testWith(lua);
const evaluator = new Lua51HealthEvaluator({ command: lua.command ?? 'lua5.1' });

// The reference homelab without its app tier, so that the fixture's one canary app (`web`) is the only Rollout.
const withoutApps = { ...REFERENCE_HOMELAB, delivery: { ...REFERENCE_HOMELAB.delivery!, apps: {} } };
const synthesis = synthesizeHomelab(withoutApps);
const reference: SimulationInput = { tree: synthesis.tree, steps: planSteps(synthesis.bootstrap.steps) };
const full = synthesizeHomelab(REFERENCE_HOMELAB);
const referenceWithApps: SimulationInput = { tree: full.tree, steps: planSteps(full.bootstrap.steps) };
const ANALYSIS_FIRST = [
  { setWeight: 20 }, { analysis: { templates: [{ templateName: 'web-success-rate' }] } }, { setWeight: 60 }, { pause: { duration: '2m' } },
];

function scenario(input: SimulationInput, name: string): Scenario {
  const s = scenariosFor(input).find((x) => x.name === name);
  if (!s) throw new Error(`no scenario ${name}: ${scenariosFor(input).map((x) => x.name).join(', ')}`);
  return s;
}
const run = (input: SimulationInput, s: Scenario, horizonSeconds?: number): ScenarioOutcome =>
  simulateScenario(input, s, { evaluator, horizonSeconds });
const from = (events: readonly TimelineEvent[], source: string) => events.filter((e) => e.source === source);
const firstAt = (events: readonly TimelineEvent[], source: string, text: string | RegExp) =>
  events.find((e) => e.source === source && (typeof text === 'string' ? e.message.includes(text) : text.test(e.message)))?.at;

test('without an app tier there is no Rollout, so no canary scenario; the reference\'s canary app hello gets all three', () => {
  expect(scenariosFor(reference).filter((s) => s.name.startsWith('canary-'))).toEqual([]);
  expect(scenariosFor(referenceWithApps).filter((s) => s.name.startsWith('canary-')).map((s) => s.name))
    .toEqual(['canary-promoted', 'canary-aborted', 'canary-paused']);
});

describe('an Application is mapped to its manifests through its own kustomization outside dist/', () => {
  const input = withCanaryApp(reference);
  const app = { metadata: { name: CANARY_APP }, spec: { source: { path: `k8s/apps/${CANARY_APP}` } } };

  test('appOverlayFiles: the kustomization a user creates once in the app\'s directory, naming the generated folder', () => {
    expect([...appOverlayFiles(reference.tree, [{ name: 'web', overlayPath: 'k8s/apps/web/' }, { name: 'api', overlayPath: 'apps/api' }])]).toEqual([
      ['k8s/apps/web/kustomization.yaml', 'apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources:\n- ../../generated/apps/web\n'],
      ['apps/api/kustomization.yaml', 'apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources:\n- ../../k8s/generated/apps/api\n'],
    ]);
  });

  test('k8s/apps/web/kustomization.yaml (repoFiles) → ../../generated/apps/web → the files its kustomization lists', () => {
    expect(applicationObjects(input, app).map((o) => `${o.kind}/${o.metadata.name}`))
      .toEqual(['Rollout/web', 'Service/web', 'Service/web-canary', 'AnalysisTemplate/web-success-rate']);
  });

  test('a kustomization over the Argo Rollouts release: the controller\'s Deployment, and the kustomization\'s namespace on each object', () => {
    const rollouts = { metadata: { name: 'argo-rollouts' }, spec: { source: { path: 'k8s/generated/delivery/argo-rollouts' } } };
    expect(applicationObjects(input, rollouts).map((o) => `${o.kind}/${o.metadata.namespace}/${o.metadata.name}`))
      .toEqual(['Deployment/argo-rollouts/argo-rollouts', 'NetworkPolicy/argo-rollouts/argo-rollouts']);
  });

  test('without repoFiles the adoption step is assumed: the app directory\'s kustomization over apps/web (adoptedAppOverlays)', () => {
    expect([...adoptedAppOverlays(input.tree)]).toEqual([...appOverlayFiles(input.tree, [{ name: 'web', overlayPath: 'k8s/apps/web' }])]);
    expect(applicationObjects({ ...input, repoFiles: undefined }, app)).toEqual(applicationObjects(input, app));
  });

  test('an Application outside dist/ without a generated folder of its name is opaque content: no canary scenario', () => {
    const tree = new Map([...input.tree].filter(([file]) => file !== 'apps/web/kustomization.yaml'));
    const opaque = { ...input, tree, repoFiles: undefined };
    expect(applicationObjects(opaque, app)).toEqual([]);
    expect(scenariosFor(opaque).filter((s) => s.name.startsWith('canary-'))).toEqual([]);
  });

  test('Image Updater\'s .argocd-source-web.yaml sets the container image as `kustomize edit set image` does', () => {
    const s = scenario(input, 'canary-promoted');
    const [file, text] = Object.entries(s.secondRun?.repoFiles ?? {})[0];
    expect(file).toBe(`k8s/apps/${CANARY_APP}/.argocd-source-${CANARY_APP}.yaml`);
    expect(text).toMatch(/^kustomize:\n {2}images:\n {2}- forgejo-http\.cicd\.svc\.cluster\.local:3000\/homelab\/web:main@sha256:[0-9a-f]{64}\n$/);
    const updated = { ...input, repoFiles: new Map([...input.repoFiles!, [file, text]]) };
    const image = (i: SimulationInput) => applicationObjects(i, app).find((o) => o.kind === 'Rollout')!.spec.template.spec.containers[0].image;
    expect(image(input)).toBe(CANARY_IMAGE);
    expect(image(updated)).toBe(text.split('- ')[1].trim());
  });
});

describe('canary scenarios: the default steps (setWeight 20, pause 1m, analysis, setWeight 60, pause 2m)', () => {
  const input = withCanaryApp(reference, { steps: DEFAULT_STEPS });

  test('scenarios found generically from the Rollout of an Application', () => {
    expect(scenariosFor(input).filter((s) => s.name.startsWith('canary-')).map((s) => s.name)).toEqual(['canary-promoted', 'canary-aborted', 'canary-paused']);
  });

  luaTest('canary-promoted: created straight to Healthy in the first run; walks every step in the second; ends Healthy', () => {
    // GIVEN
    const s = scenario(input, 'canary-promoted');
    // WHEN
    const outcome = run(input, s);
    // THEN
    expect(expectedStates(s)).toEqual(['Healthy']);
    expect(outcome.state).toBe('Healthy');
    expect(outcome.finalState).toEqual([]);
    expect(outcome.applications[CANARY_APP]).toEqual({ status: 'Healthy', message: '' });
    const first = from(outcome.firstRun!.timeline, 'argo-rollouts').map((e) => e.message);
    expect(first).toEqual([expect.stringMatching(/^Rollout web\/web: created ReplicaSet web-\w+ \(revision 1\) at full scale: the initial deploy skips the canary steps$/)]);
    const steps = from(outcome.timeline, 'argo-rollouts').filter((e) => e.message.includes('Rollout step')).map((e) => e.message.replace(/.*completed /, ''));
    expect(steps).toEqual(['(setWeight: 20)', '(pause: 1m)', '(analysis)', '(setWeight: 60)', '(pause: 2m)']);
    // The root's sync had finished during the first (timed) pause; the bring-up waits for the canary nonetheless.
    const rootSynced = firstAt(outcome.timeline, 'argocd/root', 'sync Succeeded')!;
    const promoted = firstAt(outcome.timeline, 'argo-rollouts', 'Completed all 5 canary steps')!;
    expect(rootSynced).toBeLessThan(promoted);
    expect(outcome.at).toBe(promoted);
  });

  luaTest('canary-aborted after a pause: the root had moved past the app\'s wave, so its health turns Degraded with the abort', () => {
    const s = scenario(input, 'canary-aborted');
    const outcome = run(input, s);
    expect(s.cause).toBe('RolloutAborted: Rollout aborted update to revision 2: Step-based analysis phase error/failed: '
      + 'Metric "success-rate" assessed Failed due to failed (2) > failureLimit (1)');
    expect(outcome.state).toBe('Degraded');
    expect(outcome.where).toBe('argocd/root');
    expect(outcome.message).toBe(`Application/${CANARY_APP}: Synced, health Degraded (Rollout web/web: ${s.cause})`);
    expect(outcome.applications[CANARY_APP]).toEqual({ status: 'Degraded', message: `Rollout/web: ${s.cause}` });
    expect(outcome.finalState[0]).toBe(`Rollout web/web: Degraded: ${s.cause}`);
    expect(firstAt(outcome.timeline, 'argocd/root', 'sync Succeeded')).toBeLessThan(firstAt(outcome.timeline, 'argo-rollouts', 'Rollout aborted')!);
  });

  luaTest('canary-paused (inconclusive analysis): the app ends Suspended, the root counts it done, later waves proceed', () => {
    const s = scenario(input, 'canary-paused');
    const outcome = run(input, s);
    expect(s.secondRun?.faults).toEqual({ inconclusiveAnalyses: [{ namespace: 'web', rollout: 'web', metric: 'success-rate' }] });
    expect(outcome.state).toBe('Healthy');
    expect(outcome.applications[CANARY_APP]).toEqual({ status: 'Suspended', message: 'Rollout/web: InconclusiveAnalysisRun' });
    expect(outcome.finalState).toContain('Rollout web/web: Paused: InconclusiveAnalysisRun');
  });
});

describe('canary scenarios: an analysis before any pause (the root still waits at the app\'s wave)', () => {
  const input = withCanaryApp(reference, { steps: ANALYSIS_FIRST });

  luaTest('canary-aborted: the root\'s sync fails at the app\'s wave, naming the abort; later waves never start', () => {
    const s = scenario(input, 'canary-aborted');
    const outcome = run(input, s);
    expect(expectedStates(s)).toEqual(['Failed']);
    expect(outcome.state).toBe('Failed');
    expect(outcome.where).toBe('argocd/root');
    expect(outcome.message).toContain(s.cause);
    expect(outcome.message).toMatch(/^one or more synchronization tasks completed unsuccessfully \(retried 5 times\)\. \[Application\/argocd\/web: Synced, health Degraded/);
    const secondRunWaves = from(outcome.timeline, 'argocd/root').filter((e) => /^wave [5-8]:/.test(e.message));
    expect(secondRunWaves).toEqual([]);
  });

  luaTest('canary-promoted: the root waits through setWeight and analysis (Progressing), then proceeds', () => {
    const outcome = run(input, scenario(input, 'canary-promoted'));
    expect(outcome.state).toBe('Healthy');
    const analysisDone = firstAt(outcome.timeline, 'argo-rollouts', 'completed (analysis)')!;
    expect(firstAt(outcome.timeline, 'argocd/root', /^wave 5:/)).toBeGreaterThanOrEqual(analysisDone);
  });
});

describe('canary scenarios: an indefinite pause (a manual gate)', () => {
  const input = withCanaryApp(reference, { steps: MANUAL_GATE_STEPS });

  test('no canary-promoted (it needs `kubectl argo rollouts promote`), and no abort before the gate', () => {
    expect(scenariosFor(input).filter((s) => s.name.startsWith('canary-')).map((s) => s.name)).toEqual(['canary-paused']);
  });

  luaTest('canary-paused: Paused at the pause step; the root counts the Suspended app as done and syncs waves 5 to 8; ends Healthy', () => {
    const s = scenario(input, 'canary-paused');
    const outcome = run(input, s);
    expect(s.secondRun?.faults).toEqual({});
    expect(expectedStates(s)).toEqual(['Healthy']);
    expect(outcome.state).toBe('Healthy');
    expect(outcome.finalState).toEqual(['Rollout web/web: Paused: CanaryPauseStep']);
    expect(outcome.applications[CANARY_APP]).toEqual({ status: 'Suspended', message: 'Rollout/web: CanaryPauseStep' });
    const paused = firstAt(outcome.timeline, 'argo-rollouts', 'indefinitely, until promoted')!;
    const laterWaves = from(outcome.timeline, 'argocd/root').filter((e) => /^wave [5-8]:/.test(e.message));
    expect(laterWaves.map((e) => e.message.slice(0, 6))).toEqual(['wave 5', 'wave 6', 'wave 7', 'wave 8']);
    expect(laterWaves[0].at).toBeGreaterThanOrEqual(paused);
    // The app's own sync finished on apply: one wave, no hooks.
    const webSync = from(outcome.timeline, `argocd/${CANARY_APP}`).map((e) => e.message);
    expect(webSync).toContain('sync Succeeded: successfully synced (all tasks run)');
  });

  luaTest('with a PostSync hook the paused canary holds its own sync until the controller\'s sync timeout (why the config forbids it)', () => {
    // GIVEN the same app with a PostSync E2E Job: two phases, so the sync waits for the Rollout to be Healthy
    const hooked = withCanaryApp(reference, { steps: MANUAL_GATE_STEPS, postSyncHook: true });
    const timeout = controllerSyncTimeout(hooked.tree);
    expect(timeout).toBeGreaterThan(0);
    // WHEN
    const outcome = run(hooked, scenario(hooked, 'canary-paused'), timeout + 3600);
    // THEN the Suspended Rollout keeps the app's sync running (taskOutcome): the app's sync never ends, so the root,
    // which waits for the app's wave, reaches the same timeout first and its operation is terminated (not retried).
    const rootStarted = firstAt(outcome.timeline, 'argocd/root', 'auto-sync started')!;
    expect(outcome.state).toBe('Failed');
    expect(outcome.where).toBe('argocd/root');
    expect(outcome.message).toBe('Operation terminated, triggered by controller sync timeout');
    expect(outcome.at - rootStarted).toBeGreaterThan(timeout);
    expect(from(outcome.timeline, `argocd/${CANARY_APP}`).filter((e) => e.message.startsWith('sync Succeeded'))).toEqual([]);
    expect(outcome.applications[CANARY_APP]).toEqual({ status: 'Suspended', message: 'Rollout/web: CanaryPauseStep' });
    // In the first run (creation, no steps) the same hooked app synced at once.
    expect(from(outcome.firstRun!.timeline, `argocd/${CANARY_APP}`).map((e) => e.message)).toContain('sync Succeeded: successfully synced (no more tasks)');
  });
});

describe('the Rollouts controller must come first', () => {
  luaTest('a canary app in an earlier wave than argo-rollouts never becomes healthy: its Rollout gets no status', () => {
    const input = withCanaryApp(reference, { rolloutsWave: 5, appWave: 4 });
    const outcome = run(input, scenario(input, 'happy-path'));
    expect(outcome.state).toBe('Stalled');
    expect(outcome.message).toContain('waiting for healthy state of argoproj.io/Application/web');
    expect(outcome.applications[CANARY_APP]).toEqual({ status: 'Progressing', message: 'Rollout/web: Waiting for rollout spec update to be observed' });
  });
});
