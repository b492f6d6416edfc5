import { REFERENCE_HOMELAB } from '../../lib/config/defaults';
import { HomelabConfig } from '../../lib/config/homelab-config';
import { planSteps } from '../../lib/output/render-steps';
import {
  expectedStates, formatTimeline, generatedHealthChecks, Lua51HealthEvaluator, Scenario, ScenarioOutcome, scenariosFor, simulateScenario,
  SimulationInput,
} from '../../lib/simulation';
import { synthesizeHomelab } from '../../lib/synth/synthesize-homelab';
import { POSTGRES_RESTORE_TIMEOUT } from '../../lib/homelab/bootstrap-plan';
import backupExample from '../../examples/backup.config';
import ddbExample from '../../examples/ddb-cluster.config';
import { findTool, testWith } from '../tools';
import * as YAML from 'yaml';

const lua = findTool('lua5.1', ['lua5.1'], '-v');
const luaTest = testWith(lua);

const evaluator = new Lua51HealthEvaluator({ command: lua.command ?? 'lua5.1' });

const cutover = (c: HomelabConfig): HomelabConfig => ({ ...c, git: { ...c.git, source: 'forgejo' } });
const same = (i: SimulationInput): SimulationInput => i;
const VARIANTS: [string, HomelabConfig, (i: SimulationInput) => SimulationInput][] = [
  ['reference', REFERENCE_HOMELAB, same],
  ['reference after the cutover', cutover(REFERENCE_HOMELAB), same],
  ['ddb example', ddbExample, same],
  ['ddb example after the cutover', cutover(ddbExample), same],
  ['backup example (restores through the plugin Phase 0 installs)', backupExample, same],
];

describe.each(VARIANTS)('bring-up simulation: %s', (_label, config, prepare) => {
  const synthesis = synthesizeHomelab(config);
  const input: SimulationInput = prepare({ tree: synthesis.tree, steps: planSteps(synthesis.bootstrap.steps) });
  const scenarios = scenariosFor(input);
  const run = (s: Scenario): ScenarioOutcome => simulateScenario(input, s, { evaluator });

  test('reads the Application and Database health checks from the generated argocd-cm', () => {
    const checks = generatedHealthChecks(input.tree);
    expect([...checks.keys()]).toEqual(expect.arrayContaining(['argoproj.io_Application', 'postgresql.cnpg.io_Database']));
  });

  luaTest('happy path: converges in the declared order', () => {
    // GIVEN
    const happy = scenarios.find((s) => s.name === 'happy-path') as Scenario;
    // WHEN
    const outcome = run(happy);
    // THEN
    expect(outcome.state).toBe('Healthy');
    const runbook = outcome.timeline.filter((e) => e.source === 'runbook' && / applied /.test(e.message)).map((e) => e.message.split(' ')[2]);
    expect(runbook).toEqual(input.steps.map((p) => p.step.stepName));
    // The root applies its waves in increasing order, each only after every child of the earlier waves synced.
    const rootWaves = outcome.timeline.filter((e) => e.source === 'argocd/root' && e.message.startsWith('wave '));
    const waves = rootWaves.map((e) => Number(/^wave (-?\d+)/.exec(e.message)![1]));
    expect(waves).toEqual([...new Set(waves)].sort((a, b) => a - b));
    const synced = new Map(outcome.timeline.filter((e) => e.message.startsWith('sync Succeeded')).map((e) => [e.source, e.at]));
    for (let i = 1; i < rootWaves.length; i++) {
      const earlier = rootWaves.slice(0, i).flatMap((e) => [...e.message.matchAll(/Application\/([a-z0-9-]+)/g)].map((m) => m[1]));
      for (const app of earlier) expect(synced.get(`argocd/${app}`)).toBeLessThanOrEqual(rootWaves[i].at);
    }
    const lastRunbook = outcome.timeline.filter((e) => e.source === 'runbook').pop()!;
    expect(rootWaves[0].at).toBeGreaterThan(lastRunbook.at);
  });

  for (const s of scenarios.filter((x) => x.cause !== undefined)) {
    // Before the health checks were rewritten, five of these stalled as Progressing forever (issue 12).
    luaTest(`fails naming the cause: ${s.name} (${s.description})`, () => {
      const outcome = run(s);
      expect(expectedStates(s)).toContain(outcome.state);
      expect(outcome.message).toContain(s.cause);
      if (s.evidence) expect(outcome.finalState.join('\n')).toContain(s.evidence);
      if (s.spared) {
        const health = (names: readonly string[]) => Object.fromEntries(names.map((n) => [n, outcome.applications[n]?.status]));
        expect(health(s.spared.healthy)).toEqual(Object.fromEntries(s.spared.healthy.map((n) => [n, 'Healthy'])));
        expect(health(s.spared.neverApplied)).toEqual(Object.fromEntries(s.spared.neverApplied.map((n) => [n, undefined])));
      }
      // Within the longest wait the runbook has: a recovering cluster's hour (a plugin CNPG never registers is only
      // reported then; a recovery CNPG gave up on is reported at once, --fail-when).
      expect(outcome.at).toBeLessThan(POSTGRES_RESTORE_TIMEOUT.toSeconds() + 600);
    });
  }

  for (const s of scenarios.filter((x) => x.cause === undefined && x.name !== 'happy-path')) {
    luaTest(`ends ${expectedStates(s).join(' or ')}: ${s.name} (${s.description})`, () => {
      const outcome = run(s);
      expect(expectedStates(s)).toContain(outcome.state);
      if (s.evidence) expect(outcome.finalState.join('\n')).toContain(s.evidence);
      else expect(outcome.finalState).toEqual([]);
    });
  }

  luaTest('Argo CD runs the root app the last runbook step left: after the cutover, the one flipped to Forgejo', () => {
    const happy = scenarios.find((s) => s.name === 'happy-path') as Scenario;
    const reads = run(happy).timeline.find((e) => e.source === 'argocd/root' && e.message.startsWith('reads '));
    const lastRoot = [...input.tree.entries()].filter(([f]) => /^bootstrap\/\d+-argocd-root\.yaml$/.test(f))
      .flatMap(([, text]) => YAML.parseAllDocuments(text).map((d) => d.toJSON()))
      .find((o) => o?.kind === 'Application' && o.metadata.name === 'root');
    expect(reads?.message).toContain(`reads ${lastRoot.spec.source.repoURL} ${lastRoot.spec.source.path}`);
    // Before the fix the simulation kept the seed root it saw first (World.apply ignored a re-apply).
    if (config.git.source === 'forgejo') expect(reads?.message).toMatch(/forgejo.*\(generation 2\)$/);
  });

  luaTest('is deterministic: the same timeline twice', () => {
    const happy = scenarios.find((s) => s.name === 'happy-path') as Scenario;
    expect(formatTimeline(run(happy).timeline)).toBe(formatTimeline(run(happy).timeline));
  });
});
