/** The rules of `delivery.apps` that span sections: each app is an Argo CD Application, so its name must be free. */
import { generatedApplicationRole } from '../../shared/application-names';
import type { ProblemCollector } from '../../shared/errors';
import type { ResolvedHomelabConfig } from '../resolved';

/** A `ConfigRule` of lib/config/rules.ts (typed by shape: that file imports this one). */
export const appsRules = {
  name: 'each app of the app tier has a name no other Application of the tree has',
  check: (config: ResolvedHomelabConfig, problems: ProblemCollector): void => {
    const delivery = config.delivery;
    if (!delivery) return;
    for (const name of Object.keys(delivery.apps).sort()) {
      const path = `delivery.apps.${name}`;
      const role = generatedApplicationRole(name);
      problems.when(role !== undefined, path, () => `'${name}' is the name of ${role}; each app is an Argo CD Application of its own, ` +
        'so its name must be free. Rename the app.');
      problems.when(role === undefined && name in config.argocd.applications, path, () => `'${name}' is also argocd.applications.${name}; ` +
        'each app is an Argo CD Application of its own, so its name must be free. Rename the app, or remove the catalog entry.');
    }
  },
};
