// Wave semantics of a canary app, on the Rollout the reference homelab generates, with Argo CD v3.5.1's built-in Rollout
// health (builtinRolloutHealth, proven against Argo CD's Lua VM) and gitops-engine's task outcome (lib/simulation).
import YAML from 'yaml';
import { REFERENCE_HOMELAB } from '../../lib/config/defaults';
import { builtinRolloutHealth } from '../../lib/simulation/health';
import { isHook, syncWave, taskOutcome } from '../../lib/simulation/argocd-sync';
import { synthesizeHomelab } from '../../lib/synth/synthesize-homelab';

const { tree } = synthesizeHomelab(REFERENCE_HOMELAB);
const objects = ['analysis', 'pod-monitor', 'services', 'workload']
  .flatMap((f) => YAML.parseAllDocuments(tree.get(`apps/hello/${f}.yaml`)!).map((d) => d.toJSON()));
const rollout = objects.find((o) => o.kind === 'Rollout');

/** The generated Rollout as the controller (v1.9.1) reports it in `phase` with `message`. */
function withStatus(phase: string, message: string) {
  return { ...rollout, metadata: { ...rollout.metadata, generation: 2 }, status: { observedGeneration: '2', phase, message } };
}

test('a canary at a pause step is Suspended, and a Suspended resource keeps a sync task running', () => {
  const paused = withStatus('Paused', 'CanaryPauseStep');
  expect(builtinRolloutHealth(paused)).toEqual({ status: 'Suspended', message: 'CanaryPauseStep' });
  expect(taskOutcome(paused, builtinRolloutHealth(paused))).toBe('running');
});

test('an aborted canary is Degraded (the task fails); a promoted one Healthy', () => {
  const aborted = withStatus('Degraded', 'RolloutAborted: Rollout aborted update to revision 2: Step-based analysis phase error/failed: ' +
    'Metric "success-rate" assessed Failed due to failed (2) > failureLimit (1)');
  expect(builtinRolloutHealth(aborted).status).toBe('Degraded');
  expect(taskOutcome(aborted, builtinRolloutHealth(aborted))).toBe('failed');
  const promoted = withStatus('Healthy', '');
  expect(taskOutcome(promoted, builtinRolloutHealth(promoted))).toBe('succeeded');
});

test('so the canary app is one step: no hook and one wave, and its sync ends at apply instead of waiting on a paused Rollout', () => {
  expect(objects.filter(isHook)).toEqual([]);
  expect([...new Set(objects.map(syncWave))]).toEqual([0]);
  expect(rollout.spec.strategy.canary.steps.map((s: Record<string, unknown>) => Object.keys(s)[0]))
    // the last analysis runs the E2E part's template (hello has e2e)
    .toEqual(['setWeight', 'pause', 'analysis', 'setWeight', 'pause', 'analysis', 'analysis']);
});
