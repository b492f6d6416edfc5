/** One thing wrong with a synthesized output file: where it is, and what to do about it. */
export interface OutputProblem {
  /** Path of the file in the output tree, e.g. `bootstrap/04-forgejo.yaml`. */
  readonly file: string;
  /**
   * The object the problem is in: `Kind/namespace/name`, or `Kind/name` when it has no namespace.
   *
   * @default - the problem is about the file itself
   */
  readonly object?: string;
  /**
   * Field path inside the object (or the YAML document), e.g. `spec.template.spec.containers[0].image`.
   *
   * @default - the problem is about the whole object or file
   */
  readonly path?: string;
  /** What is wrong, the value, and the fix. */
  readonly message: string;
}

/** Renders the `object` of a problem for people: `Deployment/cicd/forgejo` becomes `Deployment cicd/forgejo`. */
function displayObject(object: string): string {
  const slash = object.indexOf('/');
  return slash < 0 ? object : `${object.slice(0, slash)} ${object.slice(slash + 1)}`;
}

/** One line per problem: `file: Kind ns/name: path: message`. */
export function formatOutputProblem(p: OutputProblem): string {
  return [p.file, p.object === undefined ? undefined : displayObject(p.object), p.path, p.message]
    .filter((part) => part !== undefined && part !== '')
    .join(': ');
}

/** Renders problems as a readable list with a heading, one line per problem. */
export function formatOutputProblems(problems: readonly OutputProblem[]): string {
  const plural = problems.length === 1 ? 'problem' : 'problems';
  return [
    `The synthesized output has ${problems.length} ${plural}:`,
    ...problems.map((p) => `  - ${formatOutputProblem(p)}`),
  ].join('\n');
}

/** Thrown by `assertValidOutput` with every problem, so users fix them all in one round. */
export class OutputValidationError extends Error {
  public readonly problems: readonly OutputProblem[];

  constructor(problems: readonly OutputProblem[]) {
    super(formatOutputProblems(problems));
    this.name = 'OutputValidationError';
    this.problems = problems;
  }
}
