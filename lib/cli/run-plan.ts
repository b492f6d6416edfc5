import { HomelabConfig } from '../config/homelab-config';
import { synthesizeHomelab } from '../synth/synthesize-homelab';
import { ConfigError } from '../shared/errors';
import { buildPlan } from '../plan/homelab-plan';
import { renderPlanText } from '../plan/render-plan-text';
import { useColor } from '../plan/text-layout';

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
export function runPlan(config: HomelabConfig, options: { readonly color: ColorMode }, io: PlanIo): number {
  const mode = options.color;
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
