import { OutputTree, toYaml } from '../../lib/output/output-tree';
import { formatOutputProblem } from '../../lib/validation/output-problem';
import { validateOutput, ValidateOutputOptions } from '../../lib/validation/validate-output';

/** A restricted-compliant container; `overrides` replace top-level fields. */
export function container(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    name: 'app',
    image: 'registry.example.com/app:1.2.3',
    resources: { requests: { cpu: '10m', memory: '32Mi' }, limits: { memory: '64Mi' } },
    securityContext: {
      allowPrivilegeEscalation: false,
      capabilities: { drop: ['ALL'] },
      runAsNonRoot: true,
      runAsUser: 1000,
      seccompProfile: { type: 'RuntimeDefault' },
    },
    ...overrides,
  };
}

/** A valid, restricted-compliant pod spec; `overrides` replace top-level fields. */
export function podSpec(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    containers: [container()],
    securityContext: { runAsNonRoot: true, runAsUser: 1000, seccompProfile: { type: 'RuntimeDefault' } },
    ...overrides,
  };
}

/** A valid Deployment `ns/name` whose pod spec is `spec`. */
export function deployment(spec: Record<string, unknown> = podSpec(), name = 'app', ns = 'apps'): Record<string, unknown> {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name, namespace: ns },
    spec: {
      selector: { matchLabels: { app: name } },
      template: { metadata: { labels: { app: name } }, spec },
    },
  };
}

/** A valid Job `apps/job` whose pod spec is `spec`. */
export function job(spec: Record<string, unknown> = podSpec({ restartPolicy: 'Never' }), jobSpec: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    apiVersion: 'batch/v1',
    kind: 'Job',
    metadata: { name: 'job', namespace: 'apps' },
    spec: { activeDeadlineSeconds: 600, template: { spec }, ...jobSpec },
  };
}

/** Builds an output tree: arrays become multi-document YAML, strings are written as they are. */
export function treeOf(files: Record<string, readonly unknown[] | string>): OutputTree {
  return new Map(Object.entries(files).map(([path, v]) => [path, typeof v === 'string' ? v : toYaml(v)]));
}

/** Validates a tree built by `treeOf` and returns the formatted problem lines. */
export function problemsOf(files: Record<string, readonly unknown[] | string>, options?: ValidateOutputOptions): string[] {
  return validateOutput(treeOf(files), options).map(formatOutputProblem);
}

/** Validates one plain manifest file `m.yaml` holding `objects`. */
export function problemsOfObjects(...objects: unknown[]): string[] {
  return problemsOf({ 'm.yaml': objects });
}
