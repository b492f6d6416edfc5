// delivery.signing and delivery.kyverno: the defaults (the decision record's choices), and every error with its exact
// message: the config path, the value and the fix.
import { REFERENCE_HOMELAB } from '../../lib/config/defaults';
import { DeliveryConfig } from '../../lib/config/delivery/types';
import { HomelabConfig } from '../../lib/config/homelab-config';
import { parseHomelabConfig } from '../../lib/config/parse';
import { validateConfig } from '../../lib/config/validate-config';

const DELIVERY = REFERENCE_HOMELAB.delivery!;

/** The reference homelab with its delivery section changed. */
function withDelivery(change: Partial<DeliveryConfig> | Record<string, unknown>): HomelabConfig {
  return { ...REFERENCE_HOMELAB, delivery: { ...DELIVERY, ...change } as DeliveryConfig };
}

function problems(config: HomelabConfig): string[] {
  return validateConfig(config).all.map((p) => `${p.path}: ${p.message}`);
}

describe('delivery.signing and delivery.kyverno', () => {
  test('defaults: the public key in Secret cosign-public-key; chart 3.9.0, Fail for the app tier, 15 s, plain HTTP with a pull Secret, 3 replicas', () => {
    const delivery = parseHomelabConfig(REFERENCE_HOMELAB).delivery!;
    expect(delivery.signing).toEqual({ publicKeySecret: 'cosign-public-key' });
    expect(delivery.kyverno).toEqual({
      chartVersion: '3.9.0',
      namespace: 'kyverno',
      failurePolicy: 'Fail',
      timeoutSeconds: 15,
      excludedNamespaces: [],
      allowInsecureRegistry: true,
      registryPullSecret: 'forgejo-registry-read',
      admissionControllerReplicas: 3,
    });
  });

  test('the reference homelab breaks no rule', () => {
    expect(problems(REFERENCE_HOMELAB)).toEqual([]);
  });

  test('fails for a bad value of each option, naming the path, the value and what is allowed', () => {
    expect(problems(withDelivery({
      signing: { publicKeySecret: 'Cosign_Key' },
      kyverno: {
        namespace: 'Kyv', failurePolicy: 'Deny', timeoutSeconds: 31, excludedNamespaces: ['Bad'], allowInsecureRegistry: 'yes',
        registryPullSecret: 'a_b', admissionControllerReplicas: 0,
      },
    }))).toEqual([
      'delivery.kyverno.admissionControllerReplicas: must be an integer of at least 1, got 0.',
      'delivery.kyverno.allowInsecureRegistry: must be true or false, got the string \'yes\'.',
      'delivery.kyverno.excludedNamespaces[0]: \'Bad\' is not a valid namespace name: must consist of lower case letters, digits and \'-\', ' +
        'and start and end with a letter or digit.',
      'delivery.kyverno.failurePolicy: \'Deny\' is not a failure policy; use one of \'Fail\', \'Ignore\'.',
      'delivery.kyverno.namespace: \'Kyv\' is not a valid namespace name: must consist of lower case letters, digits and \'-\', and start and ' +
        'end with a letter or digit.',
      'delivery.kyverno.registryPullSecret: \'a_b\' is not a valid Secret name: must consist of lower case letters, digits, \'-\' and \'.\', ' +
        'and start and end with a letter or digit.',
      'delivery.kyverno.timeoutSeconds: must be a whole number of seconds from 1 to 30 (the API server\'s webhook limit), got 31.',
      'delivery.signing.publicKeySecret: \'Cosign_Key\' is not a valid Secret name: must consist of lower case letters, digits, \'-\' and \'.\', ' +
        'and start and end with a letter or digit.',
    ]);
  });

  test('fails for a timeout of 0 and of a fraction of a second', () => {
    for (const timeoutSeconds of [0, 1.5]) {
      expect(problems(withDelivery({ kyverno: { timeoutSeconds } }))).toEqual([
        `delivery.kyverno.timeoutSeconds: must be a whole number of seconds from 1 to 30 (the API server's webhook limit), got ${timeoutSeconds}.`,
      ]);
    }
  });

  test('accepts the bounds of the timeout, Ignore, and null for an anonymous registry', () => {
    for (const kyverno of [{ timeoutSeconds: 1 }, { timeoutSeconds: 30 }, { failurePolicy: 'Ignore' as const }, { registryPullSecret: null }]) {
      expect(problems(withDelivery({ kyverno }))).toEqual([]);
    }
    expect(parseHomelabConfig(withDelivery({ kyverno: { registryPullSecret: null } })).delivery!.kyverno.registryPullSecret).toBeNull();
  });

  test('fails for a misspelled key, listing the known ones', () => {
    expect(problems(withDelivery({ kyverno: { webhookTimeout: 3 } }))).toEqual([
      'delivery.kyverno.webhookTimeout: unknown key; allowed keys are \'admissionControllerReplicas\', \'allowInsecureRegistry\', \'chartVersion\', ' +
        '\'excludedNamespaces\', \'failurePolicy\', \'namespace\', \'registryPullSecret\', \'timeoutSeconds\'. Remove it or fix its name.',
    ]);
  });

  test('fails for a chart version other than the one the values are written for', () => {
    expect(problems(withDelivery({ kyverno: { chartVersion: '3.10.0' } }))).toEqual([
      'delivery.kyverno.chartVersion: chart version \'3.10.0\' differs from \'3.9.0\', the version the generated values are written for: a key ' +
        'the new chart renamed would silently fall back to its default (e.g. the namespaces the webhooks skip). Review ' +
        'lib/constructs/delivery/kyverno-values.ts against the new chart and update KYVERNO_CHART in lib/shared/kyverno-chart.ts, or set the ' +
        'chart version back to \'3.9.0\'.',
    ]);
  });

  test('fails when an app-tier namespace is excluded from the webhooks, naming the apps it holds', () => {
    // GIVEN the reference apps 'hello' and 'status', in namespaces of their own names
    expect(Object.keys(DELIVERY.apps!).sort()).toEqual(['hello', 'status']);
    // THEN excluding one of them is refused; another namespace is fine
    expect(problems(withDelivery({ kyverno: { excludedNamespaces: ['media', 'status'] } }))).toEqual([
      'delivery.kyverno.excludedNamespaces[1]: namespace \'status\' holds the app-tier application(s) \'status\': excluding it would let ' +
        'unsigned images run there, because no Kyverno webhook would see its pods. Remove it from excludedNamespaces.',
    ]);
  });

  test('fails when Kyverno would share its namespace with the app tier, whose pods it would then never check', () => {
    const config = withDelivery({
      apps: { ...DELIVERY.apps, hello: { ...DELIVERY.apps!.hello, namespace: 'shop' }, status: { ...DELIVERY.apps!.status, namespace: 'shop' } },
      kyverno: { namespace: 'shop' },
    });
    expect(problems(config)).toEqual([
      'delivery.kyverno.namespace: namespace \'shop\' holds the app-tier application(s) \'hello\', \'status\', but Kyverno never checks pods in ' +
        'its own namespace (chart values config.excludeKyvernoNamespace), so their images would go unverified. Give Kyverno a namespace of its ' +
        'own, e.g. \'kyverno\', or the app(s) another one (delivery.apps.<name>.namespace).',
    ]);
  });
});
