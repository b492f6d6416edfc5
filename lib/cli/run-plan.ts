import { HomelabConfig } from '../config/homelab-config';
import { synthesizeHomelab } from '../synth/synthesize-homelab';
import { ConfigError } from '../shared/errors';
import { renderPlanText } from '../plan/render-plan-text';
import { useColor } from '../plan/text-layout';
import { planSteps } from '../output/render-steps';
import { expectedStates, formatTimeline, Lua51HealthEvaluator, scenariosFor, simulateScenario, SimulationInput } from '../simulation';
import * as fs from 'fs';
import { readTree } from '../output/output-tree';
import { warningsAgainst } from './synth';

/** Where `runPlan()` writes, and what it knows about the terminal. */
export interface PlanIo {
  readonly stdout: { write(text: string): unknown };
  readonly stderr: { write(text: string): unknown };
  /** Whether stdout is a terminal. */
  readonly isTTY: boolean;
  /** The environment, for `NO_COLOR` and `TERM`. */
  readonly env: Readonly<Record<string, string | undefined>>;
}

/** Whether to colour the plan: `auto` colours on a terminal without `NO_COLOR`. */
export type ColorMode = 'auto' | 'always' | 'never';

/**
 * The `plan` command: synthesizes `config` in memory (nothing is written) and prints the plan, coloured
 * according to `color`. Returns the exit code: 0, or 1 when the config is invalid.
 */
export function runPlan(
  config: HomelabConfig, options: { readonly color: ColorMode; readonly scenario?: string; readonly committed?: string }, io: PlanIo,
): number {
  const mode = options.color;
  let synthesis;
  try {
    synthesis = synthesizeHomelab(config);
  } catch (e) {
    io.stderr.write(`${e instanceof ConfigError ? e.message : `Synthesis failed:\n${e instanceof Error ? e.message : String(e)}`}\n`);
    return 1;
  }
  if (options.scenario !== undefined) {
    return printScenario(options.scenario, { tree: synthesis.tree, steps: planSteps(synthesis.bootstrap.steps) }, io);
  }
  io.stdout.write(renderPlanText(synthesis.plan, { color: useColor({ isTTY: io.isTTY, env: io.env, mode }) }));
  // The same warnings synth prints, against the committed output.
  if (options.committed !== undefined && fs.existsSync(options.committed)) {
    io.stderr.write(warningsAgainst(readTree(options.committed), synthesis.tree, `${options.committed}/`));
  }
  return 0;
}

/**
 * `--scenario <name>`: the timeline of a simulated bring-up of this homelab (lib/simulation), with the faults
 * of the scenario injected, and how it ended. `--scenario list` names the scenarios. Exit 0 when the run ends
 * as the scenario expects (converged, or failed naming its cause), 1 otherwise, 2 for an unknown name.
 */
function printScenario(name: string, input: SimulationInput, io: PlanIo): number {
  const scenarios = scenariosFor(input);
  const list = scenarios.map((s) => `  ${s.name.padEnd(28)} ${s.description}`).join('\n');
  if (name === 'list') {
    io.stdout.write(`Scenarios of this homelab (npm run plan -- --scenario <name>):\n${list}\n`);
    return 0;
  }
  const scenario = scenarios.find((s) => s.name === name);
  if (!scenario) {
    io.stderr.write(`plan: no scenario '${name}'. This homelab has:\n${list}\n`);
    return 2;
  }
  // simulateScenario runs a scenario's second bring-up too (a re-run, a canary after a new image) and its surroundings.
  const outcome = simulateScenario(input, scenario, { evaluator: new Lua51HealthEvaluator() });
  io.stdout.write(`Scenario ${scenario.name}: ${scenario.description}\n\n`);
  if (outcome.firstRun) {
    io.stdout.write(`First bring-up (ended ${outcome.firstRun.state}):\n${formatTimeline(outcome.firstRun.timeline)}\n`);
    io.stdout.write('Second bring-up, on the cluster the first left:\n');
  }
  io.stdout.write(`${formatTimeline(outcome.timeline)}\n`);
  io.stdout.write(`Ended ${outcome.state} at ${outcome.where}: ${outcome.message}\n`);
  const expected = expectedStates(scenario).includes(outcome.state) && (scenario.cause === undefined || outcome.message.includes(scenario.cause));
  return expected ? 0 : 1;
}
