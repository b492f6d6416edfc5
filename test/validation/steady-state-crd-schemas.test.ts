// The CRDs of issue 15's steady-state delivery (Image Updater v1.3.0, Argo Rollouts v1.9.1, Kyverno v1.19.0) are
// imported (imports/) and validated (schemas/) like CNPG's and Argo CD's: objects built with the typed classes pass,
// and a field the pinned CRD does not have, or a value its enum refuses, fails with the path.
import { ApiObject, Chart, Testing } from 'cdk8s';
import { ImageUpdater } from '../../imports/image-updater-argocd-image-updater.argoproj.io';
import { ImageValidatingPolicy, ImageValidatingPolicySpecValidationActions } from '../../imports/kyverno-imagevalidatingpolicy-policies.kyverno.io';
import { AnalysisTemplate, AnalysisTemplateSpecMetricsFailureLimit } from '../../imports/rollouts-analysistemplate-argoproj.io';
import { Rollout, RolloutSpecStrategyCanaryStepsPauseDuration } from '../../imports/rollouts-rollout-argoproj.io';
import { apiVersionsOf } from '../../lib/validation/schema-validator';
import { problemsOfObjects } from './util';

function objectsOf(build: (chart: Chart) => ApiObject, namespaced = true): unknown[] {
  const chart = new Chart(Testing.app(), 'c', { namespace: namespaced ? 'shop' : undefined });
  build(chart);
  return Testing.synth(chart);
}

test('every kind is known at the API version its pinned CRD serves', () => {
  expect(apiVersionsOf('ImageUpdater')).toEqual(['argocd-image-updater.argoproj.io/v1alpha1']);
  expect(apiVersionsOf('Rollout')).toEqual(['argoproj.io/v1alpha1']);
  expect(apiVersionsOf('AnalysisTemplate')).toEqual(['argoproj.io/v1alpha1']);
  expect(apiVersionsOf('ImageValidatingPolicy').sort()).toEqual(['policies.kyverno.io/v1', 'policies.kyverno.io/v1alpha1', 'policies.kyverno.io/v1beta1']);
});

test('objects built with the typed classes pass the schemas of the pinned CRDs', () => {
  const objects = [
    ...objectsOf((c) => new Rollout(c, 'r', {
      metadata: { name: 'shop' },
      spec: {
        selector: { matchLabels: { app: 'shop' } },
        template: { metadata: { labels: { app: 'shop' } }, spec: { containers: [{ name: 'shop', image: 'registry.lan/shop@sha256:' + 'a'.repeat(64) }] } },
        strategy: { canary: { steps: [{ setWeight: 20 }, { pause: { duration: RolloutSpecStrategyCanaryStepsPauseDuration.fromString('2m') } }, { analysis: { templates: [{ templateName: 'success-rate' }] } }] } },
      },
    })),
    ...objectsOf((c) => new AnalysisTemplate(c, 'a', {
      metadata: { name: 'success-rate' },
      spec: { metrics: [{ name: 'success-rate', interval: '1m', failureLimit: AnalysisTemplateSpecMetricsFailureLimit.fromNumber(1), successCondition: 'result[0] >= 0.99',
        provider: { prometheus: { address: 'http://prometheus.monitoring:9090', query: 'vector(1)' } } }] },
    })),
    ...objectsOf((c) => new ImageUpdater(c, 'u', {
      metadata: { name: 'shop', namespace: 'argocd' },
      spec: { applicationRefs: [{ namePattern: 'shop', images: [{ alias: 'shop', imageName: 'registry.lan/shop:main' }] }] },
    })),
    ...objectsOf((c) => new ImageValidatingPolicy(c, 'p', {
      metadata: { name: 'signed-images' },
      spec: { validationActions: [ImageValidatingPolicySpecValidationActions.DENY], matchImageReferences: [{ glob: 'registry.lan/*' }],
        attestors: [{ name: 'cosign', cosign: { key: { data: '-----BEGIN PUBLIC KEY-----\n...\n-----END PUBLIC KEY-----\n' } } }],
        validations: [{ expression: 'images.containers.map(image, verifyImageSignatures(image, [attestors.cosign])).all(e, e > 0)' }] },
    }), false),
  ];
  expect(problemsOfObjects(...objects)).toEqual([]);
});

test('a field the pinned CRD does not have, and a value its enum refuses, fail with their path', () => {
  const rollout = { apiVersion: 'argoproj.io/v1alpha1', kind: 'Rollout', metadata: { name: 'shop', namespace: 'shop' },
    spec: { selector: { matchLabels: { app: 'shop' } }, strategy: { canary: { stepz: [] } } } };
  const policy = { apiVersion: 'policies.kyverno.io/v1', kind: 'ImageValidatingPolicy', metadata: { name: 'p' },
    spec: { validationActions: ['Enforce'], attestors: [], validations: [{ expression: 'true' }] } };
  const problems = problemsOfObjects(rollout, policy);
  expect(problems).toEqual([
    expect.stringContaining("Rollout shop/shop: spec.strategy.canary.stepz: unknown field 'stepz'"),
    expect.stringContaining("ImageValidatingPolicy p: spec.validationActions[0]: 'Enforce'"),
  ]);
});
