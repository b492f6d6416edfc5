import { SimulationInput } from '../../lib/simulation';
import { BARMAN_CLOUD_PLUGIN_MANIFEST_URL as PLUGIN_MANIFEST } from '../../lib/shared/pins';

/** `input` without any step that installs the plugin: a Cluster that names it then names a plugin nothing installs. */
export function withoutPluginStep(input: SimulationInput): SimulationInput {
  const steps = input.steps.filter((p) => !p.step.kustomization?.remoteResources.includes(PLUGIN_MANIFEST));
  return { ...input, steps: steps.map((p, i) => ({ ...p, index: i + 1 })) };
}
