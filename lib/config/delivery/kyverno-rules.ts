/**
 * The cross-field rules of `delivery.kyverno` and `delivery.signing`: the chart the values are written for, and an
 * app tier that the `Deny` policy can always see.
 */
import type { ResolvedHomelabConfig } from '../resolved';
import type { ProblemCollector } from '../../shared/errors';
import { KYVERNO_CHART } from '../../shared/kyverno-chart';

/** The app tier's namespaces (`delivery.apps.<name>.namespace`, by default the app's name), each with the apps in it. */
export function appTierNamespaces(apps: Readonly<Record<string, { readonly namespace?: string }>>): ReadonlyMap<string, readonly string[]> {
  const out = new Map<string, string[]>();
  for (const name of Object.keys(apps).sort()) {
    const ns = apps[name].namespace ?? name;
    out.set(ns, [...(out.get(ns) ?? []), name]);
  }
  return out;
}

/** A `ConfigRule` of lib/config/rules.ts (written out: importing the type from there would be a cycle). */
export const kyvernoRules: {
  readonly name: string;
  readonly check: (config: ResolvedHomelabConfig, problems: ProblemCollector) => void;
} = {
  name: 'Kyverno runs the chart its values are written for, and every app-tier namespace stays under the Deny policy',
  check: (config, problems) => {
    const delivery = config.delivery;
    if (delivery === undefined) return;
    const kyverno = delivery.kyverno;
    problems.when(kyverno.chartVersion !== KYVERNO_CHART.version, 'delivery.kyverno.chartVersion',
      () => `chart version '${kyverno.chartVersion}' differs from '${KYVERNO_CHART.version}', the version the generated values are written ` +
        'for: a key the new chart renamed would silently fall back to its default (e.g. the namespaces the webhooks skip). Review ' +
        'lib/constructs/delivery/kyverno-values.ts against the new chart and update KYVERNO_CHART in lib/shared/kyverno-chart.ts, or set ' +
        `the chart version back to '${KYVERNO_CHART.version}'.`);
    const tier = appTierNamespaces(delivery.apps);
    kyverno.excludedNamespaces.forEach((ns, i) => {
      problems.when(tier.has(ns), `delivery.kyverno.excludedNamespaces[${i}]`,
        () => `namespace '${ns}' holds the app-tier application(s) ${tier.get(ns)!.map((a) => `'${a}'`).join(', ')}: excluding it would let ` +
          'unsigned images run there, because no Kyverno webhook would see its pods. Remove it from excludedNamespaces.');
    });
    problems.when(tier.has(kyverno.namespace), 'delivery.kyverno.namespace',
      () => `namespace '${kyverno.namespace}' holds the app-tier application(s) ${(tier.get(kyverno.namespace) ?? []).map((a) => `'${a}'`).join(', ')}, ` +
        'but Kyverno never checks pods in its own namespace (chart values config.excludeKyvernoNamespace), so their images would go ' +
        `unverified. Give Kyverno a namespace of its own${kyverno.namespace === 'kyverno' ? '' : ', e.g. \'kyverno\''}, or the app(s) another one ` +
        '(delivery.apps.<name>.namespace).');
  },
};
