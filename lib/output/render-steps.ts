import { ChartManifest, chartManifests } from './chart-manifests';
import { OutputFiles, OutputTree, serializeFiles } from './output-tree';
import { BootstrapStep } from '../constructs/bootstrap/bootstrap-step';
import { orderSteps } from '../constructs/bootstrap/order-steps';

/** A step with its position in the apply order and the file or folder it is written to. */
export interface PlacedStep {
  readonly step: BootstrapStep;
  /** 1-based position in the apply order. */
  readonly index: number;
  /** `NN-<stepName>.yaml`, or `NN-<stepName>` for a kustomization or Helm release folder. */
  readonly fileName: string;
  /** `-f` for a manifest file, `-k` for a kustomization folder, `helm` for a Helm release (`helm upgrade --install`). */
  readonly applyFlag: '-f' | '-k' | 'helm';
}

/**
 * The values file of a Helm release step, relative to the bootstrap folder (`NN-<stepName>/values.yaml`). The one
 * place this path is made: the step writes it, the runbook passes it to helm, and an Argo CD Application that
 * adopts the release reads it from git.
 */
export function helmValuesFile(p: PlacedStep): string {
  if (p.applyFlag !== 'helm') throw new Error(`bootstrap step '${p.step.stepName}' is not a Helm release; it has no values file`);
  return `${p.fileName}/values.yaml`;
}

/** A placed step with the objects it applies. */
export interface RenderedStep extends PlacedStep {
  /** The objects the step defines (patches excluded), in apply order. */
  readonly objects: readonly Record<string, any>[];
  /** The strategic-merge patches of the step's kustomization. */
  readonly patches: readonly Record<string, any>[];
}

/**
 * Orders the steps and names their files; the numbers are an output of the dependencies, never an input.
 * Renders nothing: for readers that need the order and the file names only (the plan, the cutover).
 */
export function placeSteps(steps: readonly BootstrapStep[]): PlacedStep[] {
  const ordered = orderSteps(steps);
  const width = Math.max(2, String(ordered.length).length);
  return ordered.map((step, i) => {
    const prefix = `${String(i + 1).padStart(width, '0')}-${step.stepName}`;
    if (step.helmRelease) return { step, index: i + 1, fileName: prefix, applyFlag: 'helm' };
    return step.kustomization
      ? { step, index: i + 1, fileName: prefix, applyFlag: '-k' }
      : { step, index: i + 1, fileName: `${prefix}.yaml`, applyFlag: '-f' };
  });
}

/** Places the steps (`placeSteps`) and renders each step's objects. */
export function planSteps(steps: readonly BootstrapStep[]): RenderedStep[] {
  return placeSteps(steps).map((p) => {
    const manifests: ChartManifest[] = chartManifests(p.step);
    return {
      ...p,
      objects: [...manifests.filter((o) => !p.step.isPatch(o.obj)).map((o) => o.json), ...p.step.externalObjects()],
      patches: manifests.filter((o) => p.step.isPatch(o.obj)).map((o) => o.json),
    };
  });
}

/** Writes each planned step under `prefix` (e.g. `bootstrap/`), serialized. */
export function renderSteps(planned: readonly RenderedStep[], prefix: string): OutputTree {
  return serializeFiles(stepFiles(planned, prefix));
}

/** The files of each planned step under `prefix` (e.g. `bootstrap/`), as documents. */
export function stepFiles(planned: readonly RenderedStep[], prefix: string): OutputFiles {
  const tree: OutputFiles = new Map();
  for (const p of planned) {
    const release = p.step.helmRelease;
    if (release) {
      // helm renders the chart; the step holds its values and nothing else.
      if (p.objects.length > 0 || p.patches.length > 0) {
        throw new Error(`bootstrap step '${p.step.stepName}' is a Helm release and cannot also define objects ` +
          `(${p.objects.map((o) => `${o.kind} ${o.metadata?.name}`).join(', ')}); give them a step of their own`);
      }
      tree.set(`${prefix}${helmValuesFile(p)}`, [release.values as Record<string, unknown>]);
      continue;
    }
    const k = p.step.kustomization;
    if (!k) {
      tree.set(`${prefix}${p.fileName}`, p.objects);
      continue;
    }
    const dir = `${prefix}${p.fileName}/`;
    const resources: string[] = [...k.remoteResources];
    if (p.objects.length > 0) {
      resources.push('resources.yaml');
      tree.set(`${dir}resources.yaml`, p.objects);
    }
    const patches = p.patches.map((json) => {
      const file = `patch-${json.kind.toLowerCase()}-${json.metadata.name}.yaml`;
      tree.set(`${dir}${file}`, [json]);
      return { path: file };
    });
    const kustomization: Record<string, unknown> = {
      apiVersion: 'kustomize.config.k8s.io/v1beta1',
      kind: 'Kustomization',
      ...(k.namespace ? { namespace: k.namespace } : {}),
      ...(resources.length > 0 ? { resources } : {}),
      ...(patches.length > 0 ? { patches } : {}),
      ...(k.extra ?? {}),
    };
    tree.set(`${dir}kustomization.yaml`, [kustomization]);
  }
  return tree;
}

