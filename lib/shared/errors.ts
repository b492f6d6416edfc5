/** One thing wrong with the config: where it is, and what to do about it. */
export interface ConfigProblem {
  /** Config path of the offending item, e.g. `databases.temporal_visibility.cluster`. */
  readonly path: string;
  /** What is wrong, the value, and the fix. */
  readonly message: string;
}

/** Thrown when the config is invalid. Carries every problem, so users fix them all in one round. */
export class ConfigError extends Error {
  public readonly problems: readonly ConfigProblem[];

  constructor(problems: readonly ConfigProblem[]) {
    super(formatProblems(problems));
    this.name = 'ConfigError';
    this.problems = problems;
  }
}

/** Renders problems as a readable list, one per line, each prefixed with its config path. */
export function formatProblems(problems: readonly ConfigProblem[]): string {
  const plural = problems.length === 1 ? 'problem' : 'problems';
  return [
    `The homelab config has ${problems.length} ${plural}:`,
    ...problems.map((p) => `  - ${p.path}: ${p.message}`),
  ].join('\n');
}

/** Collects problems; `check()` throws them together. */
export class ProblemCollector {
  private readonly problems: ConfigProblem[] = [];

  /** Records a problem at `path`. */
  public add(path: string, message: string): void {
    this.problems.push({ path, message });
  }

  /** Records a problem at `path` when `condition` is true. */
  public when(condition: boolean, path: string, message: () => string): void {
    if (condition) this.add(path, message());
  }

  /** Throws a `ConfigError` with every recorded problem, if any. */
  public check(): void {
    if (this.problems.length > 0) throw new ConfigError(this.problems);
  }

  /** Problems recorded so far. */
  public get all(): readonly ConfigProblem[] {
    return this.problems;
  }
}
