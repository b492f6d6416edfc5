import { HomelabConfig } from '../config/homelab-config';
import { synthesizeHomelab } from '../synth/synthesize-homelab';
import { ConfigError } from '../shared/errors';
import { buildPlan } from './homelab-plan';
import { renderPlanText } from './render-plan-text';
import { useColor } from './text-layout';

/** Where `runPlan()` writes, and what it knows about the terminal. */
export interface PlanIo {
  readonly stdout: { write(text: string): unknown };
  readonly stderr: { write(text: string): unknown };
  /** Whether stdout is a terminal. */
  readonly isTTY: boolean;
  /** The environment, for `NO_COLOR` and `TERM`. */
  readonly env: Readonly<Record<string, string | undefined>>;
}

export const PLAN_USAGE = 'Usage: plan [--config <file.ts>] [--color | --no-color]';

/**
 * The `plan` command: synthesizes `config` in memory (nothing is written) and prints the plan, coloured
 * only on a terminal. Returns the exit code: 0, 1 when the config is invalid, 2 on a wrong argument.
 */
export function runPlan(config: HomelabConfig, argv: readonly string[], io: PlanIo): number {
  let mode: 'auto' | 'always' | 'never' = 'auto';
  for (const arg of argv) {
    if (arg === '--color') mode = 'always';
    else if (arg === '--no-color') mode = 'never';
    else if (arg === '-h' || arg === '--help') {
      io.stdout.write(`${PLAN_USAGE}\n\nPrints the Phase-0 steps, the Argo CD waves and the Phase-2 cutover of the homelab config.\n`);
      return 0;
    } else {
      io.stderr.write(`unknown argument '${arg}'. ${PLAN_USAGE}\n`);
      return 2;
    }
  }
  let synthesis;
  try {
    synthesis = synthesizeHomelab(config);
  } catch (e) {
    io.stderr.write(`${e instanceof ConfigError ? e.message : `Synthesis failed:\n${e instanceof Error ? e.message : String(e)}`}\n`);
    return 1;
  }
  const plan = buildPlan({ config: synthesis.config, bootstrap: synthesis.bootstrap, argocd: synthesis.argocd });
  io.stdout.write(renderPlanText(plan, { color: useColor({ isTTY: io.isTTY, env: io.env, mode }) }));
  return 0;
}
