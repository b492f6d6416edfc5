/** The cross-field rules of `delivery.e2e` and the apps' `e2e`. */
import type { ProblemCollector } from '../../shared/errors';
import type { ResolvedHomelabConfig } from '../resolved';

/** Names of the smoke CronJobs (`e2e-smoke-<journey or app>`) may have 52 characters: their Jobs add 11. */
const MAX_SMOKE_NAME = 42;

/** A `ConfigRule` of lib/config/rules.ts (typed structurally: rules.ts imports this file). */
export const e2eRules = {
  name: 'E2E journeys have an artifacts store, an SSO journey only where SSO is configured and a public URL, and unique smoke names',
  check: (config: ResolvedHomelabConfig, problems: ProblemCollector): void => {
    const delivery = config.delivery;
    if (!delivery) return;
    const e2e = delivery.e2e;
    const apps = Object.keys(delivery.apps).sort().filter((name) => delivery.apps[name].e2e !== undefined);
    const journeys = Object.keys(e2e.smoke.journeys).sort();
    const runs = [...apps.map((a) => `delivery.apps.${a}.e2e`), ...journeys.map((j) => `delivery.e2e.smoke.journeys.${j}`)];
    problems.when(e2e.artifacts === undefined && runs.length > 0, 'delivery.e2e.artifacts', () =>
      `is not set, but ${runs.join(', ')} run${runs.length === 1 ? 's' : ''} journeys whose video and trace the decision record keeps. ` +
      'Name the object store: artifacts: { objectStore: { endpointURL, bucket, credentials: { secretName } } }.');
    for (const name of apps) {
      const app = delivery.apps[name].e2e!;
      const path = `delivery.apps.${name}.e2e`;
      problems.when(app.sso && e2e.sso === undefined, `${path}.sso`, () =>
        'is true, but delivery.e2e.sso is not set: configure the identity provider and the test user\'s Secret there, or set sso: false.');
      problems.when(app.sso && app.baseURL === undefined, `${path}.sso`, () =>
        'is true, but the app has no baseURL: the SSO journey must open the public URL its OAuth client is registered with (the ' +
        'redirect URI). Set baseURL, e.g. \'https://' + name + '.homelab.example\'.');
      problems.when(app.smoke && name.length > MAX_SMOKE_NAME, `${path}.smoke`, () =>
        `is true, but the app's smoke CronJob 'e2e-smoke-${name}' would have ${name.length + 'e2e-smoke-'.length} characters (at most 52). ` +
        'Give the app a shorter name, or set smoke: false.');
      problems.when(app.smoke && journeys.includes(name), `delivery.e2e.smoke.journeys.${name}`, () =>
        `has the name of the app delivery.apps.${name}, whose journeys are smoke-tested as '${name}' already. Rename the journey.`);
    }
    for (const name of journeys) {
      problems.when(e2e.smoke.journeys[name].sso && e2e.sso === undefined, `delivery.e2e.smoke.journeys.${name}.sso`, () =>
        'is true, but delivery.e2e.sso is not set: configure the identity provider and the test user\'s Secret there, or set sso: false.');
    }
  },
};
