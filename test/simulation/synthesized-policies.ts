import YAML from 'yaml';
import { HomelabConfig } from '../../lib/config/homelab-config';
import { NetworkPolicyJson } from '../../lib/simulation/network-policy';
import { HomelabSynthesis, synthesizeHomelab } from '../../lib/synth/synthesize-homelab';

/** The synthesized homelab of `config`, with every NetworkPolicy of its output tree. */
export function synthesizedPolicies(config: HomelabConfig): HomelabSynthesis & { policies: NetworkPolicyJson[] } {
  const s = synthesizeHomelab(config);
  const policies = [...s.tree.entries()]
    .filter(([file, content]) => file.endsWith('.yaml') && typeof content === 'string')
    .flatMap(([, content]) => YAML.parseAllDocuments(content as string).map((d) => d.toJSON()))
    .filter((d) => d?.kind === 'NetworkPolicy') as NetworkPolicyJson[];
  return { ...s, policies };
}
