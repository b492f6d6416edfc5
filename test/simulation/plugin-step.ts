import { App } from 'cdk8s';
import { BootstrapStep } from '../../lib/constructs/bootstrap/bootstrap-step';
import { SimulationInput } from '../../lib/simulation';

/** The plugin's release manifest at the pinned version (/work/shared/reference/versions.md §2b). */
const PLUGIN_MANIFEST = 'https://github.com/cloudnative-pg/plugin-barman-cloud/releases/download/v0.14.0/manifest.yaml';

/**
 * `input` with a Phase-0 step that installs the Barman Cloud plugin right after the CNPG operator, as the `plugin`
 * branch's `barman-cloud-plugin` step does (its release manifest by URL, then the ObjectStore CRD and the plugin's
 * rollout). A stand-in until that branch lands: then the synthesized steps hold the real step and the tests that use
 * this helper switch to `planSteps(synthesis.bootstrap.steps)` alone. Returns `input` unchanged when it already
 * installs the plugin.
 */
export function withPluginStep(input: SimulationInput): SimulationInput {
  if (input.steps.some((p) => p.step.kustomization?.remoteResources.includes(PLUGIN_MANIFEST))) return input;
  const step = new BootstrapStep(new App(), 'BarmanCloudPlugin', { stepName: 'barman-cloud-plugin', summary: 'CNPG Barman Cloud plugin v0.14.0' });
  step.useKustomization({ remoteResources: [PLUGIN_MANIFEST] });
  step.addWait({ kind: 'crds-established', crds: ['objectstores.barmancloud.cnpg.io'], timeoutSeconds: 300 });
  step.addWait({ kind: 'rollout', namespace: 'cnpg-system', deployment: 'barman-cloud', timeoutSeconds: 300 });
  const operator = input.steps.findIndex((p) => p.step.stepName === 'cnpg-operator');
  if (operator < 0) throw new Error('withPluginStep: the input has no cnpg-operator step to install the plugin after');
  const steps = [...input.steps];
  steps.splice(operator + 1, 0, { step, index: 0, fileName: 'barman-cloud-plugin', applyFlag: '-k', objects: [], patches: [] });
  return { ...input, steps: steps.map((p, i) => ({ ...p, index: i + 1 })) };
}

/** `input` without any step that installs the plugin: a Cluster that names it then names a plugin nothing installs. */
export function withoutPluginStep(input: SimulationInput): SimulationInput {
  const steps = input.steps.filter((p) => !p.step.kustomization?.remoteResources.includes(PLUGIN_MANIFEST));
  return { ...input, steps: steps.map((p, i) => ({ ...p, index: i + 1 })) };
}
