import { REFERENCE_HOMELAB } from '../../lib/config/defaults';
import { playwrightImageVersion, PLAYWRIGHT_IMAGE } from '../../lib/config/delivery/e2e';
import type { DeliveryConfig } from '../../lib/config/delivery/types';
import { HomelabConfig } from '../../lib/config/homelab-config';
import { parseHomelabConfig } from '../../lib/config/parse';
import { validateConfig } from '../../lib/config/validate-config';

const STORE = { endpointURL: 'https://s3.example.net', bucket: 'homelab-e2e', credentials: { secretName: 'e2e-s3' } };

/** A delivery with one rolling app `web` (its `e2e` as given) and `delivery.e2e` as given. */
function withE2e(e2e: Record<string, unknown> | undefined, appE2e?: Record<string, unknown>): HomelabConfig {
  const delivery: DeliveryConfig = {
    registry: { pushHost: 'forgejo.homelab.example' },
    ...(e2e === undefined ? {} : { e2e: e2e as DeliveryConfig['e2e'] }),
    apps: { web: { image: 'homelab-owner/web', tag: '1.0.0', ...(appE2e ? { e2e: appE2e as never } : {}) } },
  };
  return { ...REFERENCE_HOMELAB, delivery };
}

function problems(config: HomelabConfig): string[] {
  return validateConfig(config).all.map((p) => `${p.path}: ${p.message}`);
}

describe('delivery.e2e', () => {
  test('defaults: the pinned Playwright image, the suite in tests/e2e, every 30 minutes in e2e-smoke, 15 minutes per run', () => {
    const e2e = parseHomelabConfig(withE2e(undefined)).delivery!.e2e;
    expect(e2e).toEqual({
      image: 'mcr.microsoft.com/playwright:v1.65.1-noble',
      suite: { path: 'tests/e2e' },
      smoke: { schedule: '*/30 * * * *', namespace: 'e2e-smoke', journeys: {} },
      timeoutMinutes: 15,
    });
    expect(problems(withE2e(undefined))).toEqual([]);
  });

  test('the default image is an official Playwright release, whose version the suite must match', () => {
    expect(playwrightImageVersion(PLAYWRIGHT_IMAGE)).toBe('1.65.1');
    expect(playwrightImageVersion('mcr.microsoft.com/playwright:v1.62.1-jammy')).toBe('1.62.1');
    expect(playwrightImageVersion('registry.example/e2e:1.0.0')).toBeUndefined();
  });

  test('the reference homelab gates hello (canary) and status (rolling, SSO) and smoke-tests the decision record\'s journeys', () => {
    const delivery = parseHomelabConfig(REFERENCE_HOMELAB).delivery!;
    expect(delivery.apps.hello.e2e).toEqual({ scenarios: ['hello/home.spec.ts'], baseURL: 'https://hello.homelab.example', sso: false, smoke: true });
    expect(delivery.apps.status.e2e?.sso).toBe(true);
    expect(Object.keys(delivery.e2e.smoke.journeys).sort()).toEqual(['argocd', 'authentik', 'forgejo', 'grafana', 'portainer']);
    expect(delivery.e2e.artifacts?.folder).toBe('e2e-artifacts');
    expect(delivery.e2e.sso).toEqual({
      provider: 'authentik', url: 'https://auth.homelab.example', scenario: 'sso/oidc-login.spec.ts',
      credentialsSecret: 'e2e-sso-user', usernameKey: 'username', passwordKey: 'password',
    });
    expect(problems(REFERENCE_HOMELAB)).toEqual([]);
  });

  test('fails for a floating image, a malformed Playwright tag and an unpinned reference', () => {
    expect(problems(withE2e({ image: 'mcr.microsoft.com/playwright:latest' }))).toEqual([
      'delivery.e2e.image: \'mcr.microsoft.com/playwright:latest\' floats: \'latest\' is not a pin. Write a Playwright release, e.g. ' +
      '\'mcr.microsoft.com/playwright:v1.65.1-noble\'.',
    ]);
    expect(problems(withE2e({ image: 'mcr.microsoft.com/playwright:1.65.1' }))).toEqual([
      'delivery.e2e.image: \'mcr.microsoft.com/playwright:1.65.1\' is not a tag of the Playwright image: write \'v<Playwright version>-noble\' ' +
      '(or \'-jammy\'), e.g. \'mcr.microsoft.com/playwright:v1.65.1-noble\'.',
    ]);
    expect(problems(withE2e({ image: 'mcr.microsoft.com/playwright' }))).toEqual([
      'delivery.e2e.image: \'mcr.microsoft.com/playwright\' is not a pinned image reference: write \'<registry>/<repository>:<tag>\' or ' +
      '\'…@sha256:<digest>\', e.g. \'mcr.microsoft.com/playwright:v1.65.1-noble\'.',
    ]);
    expect(problems(withE2e({ image: 'registry.example/homelab/e2e:2.0.0' }))).toEqual([]);
  });

  test('fails for a suite URL with credentials or not HTTPS, and a bad path or revision', () => {
    expect(problems(withE2e({ suite: { repoURL: 'https://token@github.com/o/r.git' } }))).toEqual([
      'delivery.e2e.suite.repoURL: contains credentials in a https:// URL (the part before \'@\'); the value is not shown. Remove the credentials from the URL ' +
      '(the config is committed and rendered into dist/), rotate them if they were real, and deliver them as a Secret.',
    ]);
    expect(problems(withE2e({ suite: { repoURL: 'git@github.com:o/r.git' } }))[0]).toMatch(/^delivery\.e2e\.suite\.repoURL: 'git@github\.com:o\/r\.git' is not an HTTPS git URL/);
    expect(problems(withE2e({ suite: { path: '/tests/e2e' } }))).toHaveLength(1);
    expect(problems(withE2e({ suite: { path: '/tests/e2e' } }))[0]).toMatch(/^delivery\.e2e\.suite\.path: /);
    expect(problems(withE2e({ suite: { revision: 'main..x' } }))[0]).toMatch(/^delivery\.e2e\.suite\.revision: 'main\.\.x' is not a valid git branch or tag/);
    expect(problems(withE2e({ suite: { credentialsSecret: 'Bad_Name' } }))[0]).toMatch(/^delivery\.e2e\.suite\.credentialsSecret: /);
  });

  test('fails for an artifacts folder with a leading slash, and an object store with a literal key', () => {
    expect(problems(withE2e({ artifacts: { objectStore: STORE, folder: '/e2e-artifacts/' } }))).toEqual([
      'delivery.e2e.artifacts.folder: \'/e2e-artifacts/\' is not a folder in a bucket: write it without a leading or trailing \'/\', e.g. \'e2e-artifacts\'.',
    ]);
    expect(problems(withE2e({ artifacts: { objectStore: { ...STORE, credentials: { secretName: 'e2e-s3', secretAccessKey: 'x' } } } }))).toEqual([
      'delivery.e2e.artifacts.objectStore.credentials.secretAccessKey: a literal secret access key is not allowed: the config is committed and ' +
      'rendered into dist/. Put it in the Secret named by \'secretName\' and name its key in \'secretAccessKeyKey\'.',
    ]);
  });

  test('fails for an SSO provider other than Authentik, a URL with credentials and a missing credentials Secret', () => {
    expect(problems(withE2e({ sso: { provider: 'keycloak', url: 'https://auth.example', credentialsSecret: 'u' } }))).toEqual([
      'delivery.e2e.sso.provider: \'keycloak\' is not an SSO provider; use one of \'authentik\'.',
    ]);
    expect(problems(withE2e({ sso: { url: 'https://user:pw@auth.example', credentialsSecret: 'u' } }))).toEqual([
      'delivery.e2e.sso.url: contains credentials in a https:// URL (the part before \'@\'); the value is not shown. Remove the credentials from the URL ' +
      '(the config is committed and rendered into dist/), rotate them if they were real, and deliver them as a Secret.',
    ]);
    expect(problems(withE2e({ sso: { url: 'https://auth.example' } }))[0]).toMatch(/^delivery\.e2e\.sso\.credentialsSecret: /);
  });

  test('fails for a six-field smoke schedule, a bad smoke namespace, and a run shorter than 2 minutes', () => {
    expect(problems(withE2e({ smoke: { schedule: '0 */30 * * * *' } }))).toEqual([
      'delivery.e2e.smoke.schedule: \'0 */30 * * * *\' has 6 fields, like CNPG\'s ScheduledBackup (seconds first); a Kubernetes CronJob schedule ' +
      'has 5, minutes first: write \'*/30 * * * *\'.',
    ]);
    expect(problems(withE2e({ smoke: { namespace: 'E2E' } }))[0]).toMatch(/^delivery\.e2e\.smoke\.namespace: 'E2E' is not a valid namespace name/);
    expect(problems(withE2e({ timeoutMinutes: 1 }))).toEqual(['delivery.e2e.timeoutMinutes: must be an integer of at least 2, got 1.']);
  });

  test('fails for a journey without scenarios, with a scenario that is not a spec file, and with a too long name', () => {
    const journey = { baseURL: 'https://portainer.example', scenarios: ['portainer/login.spec.ts'] };
    expect(problems(withE2e({ artifacts: { objectStore: STORE }, smoke: { journeys: { portainer: { ...journey, scenarios: [] } } } }))).toEqual([
      'delivery.e2e.smoke.journeys.portainer.scenarios: lists no scenario: name at least one spec file of the suite.',
    ]);
    expect(problems(withE2e({ artifacts: { objectStore: STORE }, smoke: { journeys: { portainer: { ...journey, scenarios: ['../x.spec.ts'] } } } }))).toEqual([
      'delivery.e2e.smoke.journeys.portainer.scenarios[0]: \'../x.spec.ts\' is not a scenario: name a spec file of the suite relative to ' +
      'delivery.e2e.suite.path, e.g. \'portainer/login.spec.ts\'.',
    ]);
    const long = 'a'.repeat(43);
    expect(problems(withE2e({ artifacts: { objectStore: STORE }, smoke: { journeys: { [long]: journey } } }))).toEqual([
      `delivery.e2e.smoke.journeys.${long}: '${long}' is too long for a journey name: its CronJob 'e2e-smoke-${long}' may have at most 52 characters.`,
    ]);
  });
});

describe('delivery.apps.<name>.e2e', () => {
  const store = { artifacts: { objectStore: STORE } };

  test('defaults: no SSO, smoke-tested, the stable Service as base URL', () => {
    expect(parseHomelabConfig(withE2e(store, { scenarios: ['web/home.spec.ts'] })).delivery!.apps.web.e2e)
      .toEqual({ scenarios: ['web/home.spec.ts'], sso: false, smoke: true });
  });

  test('fails when journeys run but no artifacts store is named', () => {
    expect(problems(withE2e({ smoke: { journeys: { portainer: { baseURL: 'https://p.example', scenarios: ['p.spec.ts'] } } } },
      { scenarios: ['web/home.spec.ts'] }))).toEqual([
      'delivery.e2e.artifacts: is not set, but delivery.apps.web.e2e, delivery.e2e.smoke.journeys.portainer run journeys whose video and trace ' +
      'the decision record keeps. Name the object store: artifacts: { objectStore: { endpointURL, bucket, credentials: { secretName } } }.',
    ]);
  });

  test('fails for SSO without delivery.e2e.sso and without a public base URL', () => {
    expect(problems(withE2e(store, { scenarios: ['web/home.spec.ts'], sso: true }))).toEqual([
      'delivery.apps.web.e2e.sso: is true, but delivery.e2e.sso is not set: configure the identity provider and the test user\'s Secret there, ' +
      'or set sso: false.',
      'delivery.apps.web.e2e.sso: is true, but the app has no baseURL: the SSO journey must open the public URL its OAuth client is registered ' +
      'with (the redirect URI). Set baseURL, e.g. \'https://web.homelab.example\'.',
    ]);
    expect(problems(withE2e({ ...store, smoke: { journeys: { p: { baseURL: 'https://p.example', scenarios: ['p.spec.ts'], sso: true } } } }))).toEqual([
      'delivery.e2e.smoke.journeys.p.sso: is true, but delivery.e2e.sso is not set: configure the identity provider and the test user\'s Secret ' +
      'there, or set sso: false.',
    ]);
  });

  test('fails for a base URL that is not http(s), and for no scenarios', () => {
    expect(problems(withE2e(store, { scenarios: ['web/home.spec.ts'], baseURL: 'web.example' }))).toEqual([
      'delivery.apps.web.e2e.baseURL: \'web.example\' is not a base URL: write \'http(s)://<host>[:port][/path]\' without credentials, ' +
      'e.g. \'https://portainer.homelab.example\'.',
    ]);
    expect(problems(withE2e(store, { scenarios: [] }))).toEqual([
      'delivery.apps.web.e2e.scenarios: lists no scenario: name at least one spec file of the suite.',
    ]);
  });

  test('fails when a smoke journey has the name of an app that is smoke-tested', () => {
    expect(problems(withE2e({ ...store, smoke: { journeys: { web: { baseURL: 'https://w.example', scenarios: ['w.spec.ts'] } } } },
      { scenarios: ['web/home.spec.ts'] }))).toEqual([
      'delivery.e2e.smoke.journeys.web: has the name of the app delivery.apps.web, whose journeys are smoke-tested as \'web\' already. Rename the journey.',
    ]);
  });
});
