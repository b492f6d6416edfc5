/** The rules of `delivery.build` that span fields (lib/config/rules.ts runs them with the rest). */
import { compareQuantities, hasSubUnitSuffix, parseQuantity, requestAboveLimitProblem } from '../../shared/quantity';
import { DELIVERY_APPLICATIONS } from '../../shared/application-names';
import type { ProblemCollector } from '../../shared/errors';
import type { ResolvedHomelabConfig } from '../resolved';

/** The Application `delivery.build` generates; a catalog entry of that name would be a second one. */
const RUNNER_APPLICATION = DELIVERY_APPLICATIONS.runner;

/** A `ConfigRule` of lib/config/rules.ts (typed by shape: that file imports this one). */
export const buildRules = {
  name: 'the build runner replaces the catalog\'s runner, has a namespace of its own, and its BuildKit memory request is not above its limit',
  check: (config: ResolvedHomelabConfig, problems: ProblemCollector): void => {
    const delivery = config.delivery;
    if (!delivery) return;
    const build = delivery.build;
    problems.when(RUNNER_APPLICATION in config.argocd.applications, `argocd.applications.${RUNNER_APPLICATION}`, () =>
      `'${RUNNER_APPLICATION}' is the Application delivery.build generates (a Forgejo runner with rootless BuildKit, no privileged ` +
      'container). Remove this catalog entry, and delete the folder it reads once the generated runner takes jobs.');
    const appNamespaces = Object.keys(delivery.apps).sort().map((name) => [name, delivery.apps[name].namespace ?? name] as const);
    const sharing = appNamespaces.find(([, ns]) => ns === build.namespace);
    problems.when(sharing !== undefined, 'delivery.build.namespace', () => `'${build.namespace}' is also the namespace of delivery.apps.${sharing![0]}; ` +
      'the runner\'s namespace enforces Pod Security \'privileged\' (rootless BuildKit runs with Unconfined seccomp), which an application ' +
      'namespace must never do. Give the runner a namespace of its own.');
    problems.when(build.namespace === config.forgejo.namespace, 'delivery.build.namespace', () => `'${build.namespace}' is Forgejo's ` +
      'namespace (a Phase-0 namespace); the runner\'s enforces Pod Security \'privileged\'. Give the runner a namespace of its own.');
    const bytes = (raw: string) => { const q = parseQuantity(raw); return q && !hasSubUnitSuffix(q) ? q : undefined; };
    const request = bytes(build.buildkitMemoryRequest);
    const limit = bytes(build.buildkitMemoryLimit);
    problems.when(request !== undefined && limit !== undefined && compareQuantities(request, limit) > 0, 'delivery.build.buildkitMemoryRequest',
      () => `${requestAboveLimitProblem('memory', request!, limit!)}.`);
  },
};
