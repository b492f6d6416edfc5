import { REFERENCE_HOMELAB } from '../../lib/config/defaults';
import { DeliveryAppConfig, HomelabConfig } from '../../lib/config/homelab-config';
import { parseHomelabConfig } from '../../lib/config/parse';
import { validateConfig } from '../../lib/config/validate-config';
import { canaryStepsOf, replicasOf } from '../../lib/config/delivery/rollouts-rules';
import { DEFAULT_CANARY_STEPS } from '../../lib/config/delivery/rollouts';

/** The reference homelab with one delivery app `shop` (and the rollouts section) as given. */
function withApp(app: Record<string, unknown>, rollouts: Record<string, unknown> = {}): HomelabConfig {
  const delivery = REFERENCE_HOMELAB.delivery!;
  return {
    ...REFERENCE_HOMELAB,
    delivery: { ...delivery, rollouts, apps: { shop: { image: 'homelab-owner/shop', tag: '1.0.0', ...app } as DeliveryAppConfig } },
  };
}

/** The smallest valid e2e of an app (the E2E part's schema). */
const E2E = { scenarios: ['shop/home.spec.ts'] };

function problems(config: HomelabConfig): string[] {
  return validateConfig(config).all.map((p) => `${p.path}: ${p.message}`);
}

describe('delivery.apps.<name>: workload and canary defaults', () => {
  test('a rolling app: 2 replicas, /healthz, /metrics, uid 65532, 50m and 64Mi, no canary', () => {
    const app = parseHomelabConfig(withApp({})).delivery!.apps.shop;
    expect(app).toMatchObject({ delivery: 'rolling', port: 8080, healthPath: '/healthz', metricsPath: '/metrics', runAsUser: 65532, cpuRequest: '50m', memory: '64Mi' });
    expect(app.canary).toBeUndefined();
    expect(replicasOf(app)).toBe(2);
  });

  test('a canary: the decision record\'s steps, thresholds 0.99 and 500 ms, 5 measurements a minute apart, 1 failure tolerated, 5 pods for 20 %', () => {
    const app = parseHomelabConfig(withApp({ delivery: 'canary' })).delivery!.apps.shop;
    expect(canaryStepsOf(app)).toEqual([
      { setWeight: 20 }, { pause: { duration: '2m' } }, { analysis: {} },
      { setWeight: 50 }, { pause: { duration: '2m' } }, { analysis: {} },
    ]);
    expect(replicasOf(app)).toBe(5);
    const withCanary = parseHomelabConfig(withApp({ delivery: 'canary', canary: {} })).delivery!.apps.shop;
    expect(withCanary.canary).toEqual({ analysis: { successRateMin: 0.99, latencyP95MaxMs: 500, interval: '1m', count: 5, failureLimit: 1 } });
  });

  test('a canary with e2e ends with the e2e step; a traffic router keeps 2 replicas; replicas set explicitly win', () => {
    expect(canaryStepsOf(parseHomelabConfig(withApp({ delivery: 'canary', e2e: E2E })).delivery!.apps.shop)).toEqual([...DEFAULT_CANARY_STEPS, { e2e: {} }]);
    const routed = parseHomelabConfig(withApp({ delivery: 'canary', canary: { trafficRouter: { nginx: { host: 'shop.homelab.example' } } } })).delivery!.apps.shop;
    expect(routed.canary!.trafficRouter).toEqual({ nginx: { host: 'shop.homelab.example', ingressClassName: 'nginx' } });
    expect(replicasOf(routed)).toBe(2);
    expect(replicasOf(parseHomelabConfig(withApp({ delivery: 'canary', replicas: 7 })).delivery!.apps.shop)).toBe(7);
    expect(replicasOf(parseHomelabConfig(withApp({ delivery: 'canary', canary: { steps: [{ setWeight: 10 }, { analysis: {} }] } })).delivery!.apps.shop)).toBe(10);
  });

  test('delivery.rollouts.prometheusAddress is optional and must be an http(s) URL', () => {
    expect(parseHomelabConfig(withApp({})).delivery!.rollouts).toEqual({});
    expect(problems(withApp({}, { prometheusAddress: 'prometheus:9090' }))).toEqual([
      "delivery.rollouts.prometheusAddress: 'prometheus:9090' is not an http(s) URL; write it like 'http://prometheus-operated.monitoring.svc:9090'.",
    ]);
  });
});

describe('delivery.apps.<name>: exact messages', () => {
  test.each<[string, Record<string, unknown>, string[]]>([
    ['canary set on a rolling app', { canary: {} }, [
      "delivery.apps.shop.canary: is set, but the app's delivery is 'rolling': only a canary app (a Rollout) has canary steps. Set delivery: 'canary', or remove canary.",
    ]],
    ['analysis count 0', { delivery: 'canary', canary: { analysis: { count: 0, failureLimit: 0 } } }, [
      'delivery.apps.shop.canary.analysis.count: count must be an integer of at least 1, got the number 0: Argo Rollouts never executes a step ' +
      'analysis with count 0, so the canary would be promoted unchecked.',
    ]],
    ['successRateMin above 1', { delivery: 'canary', canary: { analysis: { successRateMin: 99 } } }, [
      'delivery.apps.shop.canary.analysis.successRateMin: successRateMin is a fraction above 0 and at most 1 (0.99 = 99 %), got the number 99.',
    ]],
    ['successRateMin of 0', { delivery: 'canary', canary: { analysis: { successRateMin: 0 } } }, [
      'delivery.apps.shop.canary.analysis.successRateMin: successRateMin is a fraction above 0 and at most 1 (0.99 = 99 %), got the number 0.',
    ]],
    ['a negative latency', { delivery: 'canary', canary: { analysis: { latencyP95MaxMs: -5 } } }, [
      'delivery.apps.shop.canary.analysis.latencyP95MaxMs: latencyP95MaxMs must be a number of milliseconds above 0, got the number -5.',
    ]],
    ['an interval that is no duration', { delivery: 'canary', canary: { analysis: { interval: '60' } } }, [
      "delivery.apps.shop.canary.analysis.interval: '60' is not a positive Go duration; write it like '10m0s' or '8h'.",
    ]],
    ['a failureLimit the analysis can never exceed', { delivery: 'canary', canary: { analysis: { count: 3, failureLimit: 3 } } }, [
      'delivery.apps.shop.canary.analysis.failureLimit: is 3 with count 3: an analysis fails only after more than failureLimit failed ' +
      'measurements, so it could never fail and never abort the canary. Set failureLimit below count (e.g. 2), or raise count.',
    ]],
    ['a setWeight above 100', { delivery: 'canary', canary: { steps: [{ setWeight: 120 }, { analysis: {} }] } }, [
      'delivery.apps.shop.canary.steps[0].setWeight: setWeight must be an integer percentage from 1 to 100, got the number 120.',
    ]],
    ['an unknown step', { delivery: 'canary', canary: { steps: [{ setCanaryScale: { replicas: 1 } }, { analysis: {} }] } }, [
      "delivery.apps.shop.canary.steps[0]: an object is not a canary step; write one of { setWeight: 20 }, { pause: {} }, { pause: { duration: '2m' } }, " +
      '{ analysis: {} }, { e2e: {} }.',
    ]],
    ['steps without any analysis', { delivery: 'canary', canary: { steps: [{ setWeight: 50 }, { pause: {} }] } }, [
      'delivery.apps.shop.canary.steps: has no { analysis: {} } or { e2e: {} } step: nothing would measure the canary, and a bad version ' +
      'would be promoted after the last step. Add { analysis: {} } after a setWeight step.',
    ]],
    ['an e2e step on an app without e2e', { delivery: 'canary', canary: { steps: [{ setWeight: 50 }, { e2e: {} }] } }, [
      'delivery.apps.shop.canary.steps[1]: is an e2e step, but the app has no e2e journeys. Add delivery.apps.shop.e2e, or remove the step.',
    ]],
    ['e2e journeys that no step runs', { delivery: 'canary', e2e: E2E, canary: { steps: [{ setWeight: 50 }, { analysis: {} }] } }, [
      'delivery.apps.shop.canary.steps: has no { e2e: {} } step, but the app has e2e journeys: they would never gate the canary (a PostSync ' +
      "hook would run only after full promotion, and would hold a paused canary's sync). Add { e2e: {} } before the last step.",
    ]],
    ['too few replicas for the smallest weight', { delivery: 'canary', replicas: 2 }, [
      'delivery.apps.shop.replicas: is 2, too few for setWeight 20 without a traffic router: Argo Rollouts v1.9.1 then weights by pod counts ' +
      'and never rounds a canary down to 0 pods, so the step puts 1 of 2 pods (50 %) on the new version instead of 20 %. Set replicas to at ' +
      'least 5, raise the smallest setWeight, or name a canary.trafficRouter.',
    ]],
    ['a pause that is no duration', { delivery: 'canary', canary: { steps: [{ setWeight: 50 }, { pause: { duration: 'soon' } }, { analysis: {} }] } }, [
      "delivery.apps.shop.canary.steps[1].pause.duration: 'soon' is not a positive Go duration; write it like '10m0s' or '8h'.",
    ]],
    ['a router host that is no host name', { delivery: 'canary', canary: { trafficRouter: { nginx: { host: 'Shop' } } } }, [
      "delivery.apps.shop.canary.trafficRouter.nginx.host: 'Shop' is not a host name; write it like 'hello.homelab.example'.",
    ]],
    ['an overlay inside the generated tree', { overlayPath: 'k8s/generated/apps/shop' }, [
      "delivery.apps.shop.overlayPath: 'k8s/generated/apps/shop' is inside the generated tree (git.distPath 'k8s/generated'): synthesis " +
      "rewrites it, so Image Updater's write-back there would be undone and fail the drift check. Use a directory of its own, e.g. 'k8s/apps/shop'.",
    ]],
    ['the tag latest', { tag: 'latest' }, [
      "delivery.apps.shop.tag: 'latest' is not a pinned tag: the image would change under the same manifest. Use a version such as '1.0.0'.",
    ]],
  ])('fails for %s', (_, app, expected) => {
    expect(problems(withApp(app))).toEqual(expected);
  });

  test('fails for the nginx router when no Application installs ingress-nginx', () => {
    const config = withApp({ delivery: 'canary', canary: { trafficRouter: { nginx: { host: 'shop.homelab.example' } } } });
    expect(problems(config)).toEqual([]);
    const applications = { ...config.argocd.applications };
    delete applications.ingress;
    expect(problems({ ...config, argocd: { ...config.argocd, applications } })).toEqual([
      'delivery.apps.shop.canary.trafficRouter.nginx: needs ingress-nginx, and no Application of argocd.applications installs the ingress-nginx ' +
      'chart. Add it, or remove trafficRouter to weight by replica counts.',
    ]);
  });

  test('fails for a canary when nothing installs kube-prometheus-stack and no prometheusAddress is set', () => {
    const config = withApp({ delivery: 'canary' });
    const applications = { ...config.argocd.applications };
    delete applications.prometheus;
    const without = { ...config, argocd: { ...config.argocd, applications } };
    expect(problems(without).filter((p) => p.startsWith('delivery.'))).toEqual([
      "delivery.apps.shop.delivery: is 'canary', whose analysis queries Prometheus, and no Application of argocd.applications installs the " +
      "kube-prometheus-stack chart. Add it, set delivery.rollouts.prometheusAddress, or use delivery: 'rolling'.",
    ]);
    expect(problems({ ...without, delivery: { ...without.delivery!, rollouts: { prometheusAddress: 'http://prometheus.lan:9090' } } })
      .filter((p) => p.startsWith('delivery.'))).toEqual([]);
  });

  test('enough replicas, or a router, or a weight of 100 only, pass the replica rule', () => {
    expect(problems(withApp({ delivery: 'canary', replicas: 5 }))).toEqual([]);
    expect(problems(withApp({ delivery: 'canary', replicas: 2, canary: { trafficRouter: { nginx: { host: 'shop.homelab.example' } } } }))).toEqual([]);
    expect(problems(withApp({ delivery: 'canary', replicas: 1, canary: { steps: [{ setWeight: 100 }, { analysis: {} }] } }))).toEqual([]);
  });
});
