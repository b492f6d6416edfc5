// Issue 15: "a Kyverno outage must not block the bring-up". Kyverno's pods never become ready on the reference
// homelab: the root's sync fails at Kyverno's wave, naming it, while every platform Application still ends Healthy
// and only the app tier (the signature policies and the apps behind them) is never applied.
import { REFERENCE_HOMELAB } from '../../lib/config/defaults';
import { planSteps } from '../../lib/output/render-steps';
import { Lua51HealthEvaluator, scenariosFor, simulateScenario, SimulationInput } from '../../lib/simulation';
import { LAST_SYNC_WAVE } from '../../lib/shared/sync-waves';
import { synthesizeHomelab } from '../../lib/synth/synthesize-homelab';
import { findTool, testWith } from '../tools';

const lua = findTool('lua5.1', ['lua5.1'], '-v');
const luaTest = testWith(lua);
const evaluator = new Lua51HealthEvaluator({ command: lua.command ?? 'lua5.1' });

const synthesis = synthesizeHomelab(REFERENCE_HOMELAB);
const input: SimulationInput = { tree: synthesis.tree, steps: planSteps(synthesis.bootstrap.steps) };
const platform = [...synthesis.argocd.applications.values()].filter((a) => !a.appTier && a.name !== 'kyverno').map((a) => a.name).sort();

luaTest('kyverno-unavailable: the root fails at Kyverno, every platform Application is Healthy, the app tier never starts', () => {
  // GIVEN
  const s = scenariosFor(input).find((x) => x.name === 'kyverno-unavailable')!;
  expect(s.faults.neverReadyDeployments).toEqual([{ namespace: 'kyverno', name: 'kyverno', reason: expect.any(String) }]);
  // WHEN
  const outcome = simulateScenario(input, s, { evaluator });
  // THEN
  expect(outcome.state).toBe('Failed');
  expect(outcome.where).toBe('argocd/root');
  expect(outcome.message).toContain('Application/argocd/kyverno: Synced, health Degraded (Deployment kyverno/kyverno: Deployment "kyverno" exceeded its progress deadline)');
  expect(platform.length).toBeGreaterThan(30);
  expect(platform.filter((name) => outcome.applications[name]?.status !== 'Healthy')).toEqual([]);
  expect(Object.keys(outcome.applications).filter((name) => ['kyverno-policies', 'hello', 'status'].includes(name))).toEqual([]);
  // The root reached the last platform wave, Kyverno's, and no later one.
  const waves = outcome.timeline.filter((e) => e.source === 'argocd/root' && /^wave \d+/.test(e.message)).map((e) => Number(/^wave (\d+)/.exec(e.message)![1]));
  expect(Math.max(...waves)).toBe(LAST_SYNC_WAVE);
});

luaTest('the same fault with Kyverno typed into wave 0 (as it was derived before): the whole platform waits for it', () => {
  // GIVEN the scenario's fault on a tree whose kyverno Application sits in wave 0
  const early = new Map(input.tree);
  early.set('argocd/apps/kyverno.yaml', input.tree.get('argocd/apps/kyverno.yaml')!.replace(/argocd\.argoproj\.io\/sync-wave: "\d+"/, 'argocd.argoproj.io/sync-wave: "0"'));
  const s = scenariosFor({ ...input, tree: early }).find((x) => x.name === 'kyverno-unavailable')!;
  // WHEN
  const outcome = simulateScenario({ ...input, tree: early }, s, { evaluator });
  // THEN
  expect(outcome.state).toBe('Failed');
  expect(platform.filter((name) => outcome.applications[name] === undefined)).toEqual(expect.arrayContaining(['authentik', 'cloudflared', 'prometheus']));
});
