/**
 * Problems of a config without throwing, for tests and tools that list them: the schema and the rule table of
 * lib/config (`parseHomelabConfig()` is the edge that throws).
 */
import { ProblemCollector } from '../shared/errors';
import { configProblems, ParseOptions } from './parse';

export { DEFAULT_PHASE0_COMPONENTS } from './schema';
export { resolveForgejoDatabase } from './rules';
export type { ForgejoDatabaseTarget } from './rules';

/** Collects every problem of `config` (any value) into `problems`, each with its config path. */
export function validateConfig(config: unknown, problems = new ProblemCollector(), options: ParseOptions = {}): ProblemCollector {
  for (const p of configProblems(config, options).problems) problems.add(p.path, p.message);
  return problems;
}
