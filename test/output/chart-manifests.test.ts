import { ApiObject, Testing } from 'cdk8s';
import { k8s } from 'cdk8s-plus-30';
import { chartManifests } from '../../lib/output/chart-manifests';

describe('chartManifests', () => {
  test('is chart.toJson(), each manifest paired with the ApiObject that defined it, in dependency order', () => {
    // GIVEN a ConfigMap defined after the Deployment that depends on it
    const chart = Testing.chart();
    const deployment = new k8s.KubeDeployment(chart, 'App', {
      metadata: { name: 'app', namespace: 'a' },
      spec: { selector: { matchLabels: { app: 'app' } }, template: { metadata: { labels: { app: 'app' } }, spec: { containers: [{ name: 'c', image: 'x:1' }] } } },
    });
    const config = new k8s.KubeConfigMap(chart, 'Config', { metadata: { name: 'app', namespace: 'a' } });
    deployment.addDependency(config);
    // WHEN
    const manifests = chartManifests(chart);
    // THEN
    expect(manifests.map((m) => m.json)).toEqual(chart.toJson());
    expect(manifests.map((m) => m.obj)).toEqual([config, deployment]);
  });

  test('throws when two objects of a chart are the same object to the API server', () => {
    const chart = Testing.chart();
    new k8s.KubeConfigMap(chart, 'One', { metadata: { name: 'same', namespace: 'a' } });
    new k8s.KubeConfigMap(chart, 'Two', { metadata: { name: 'same', namespace: 'a' } });
    expect(() => chartManifests(chart)).toThrow("test: 'test/One' and 'test/Two' both define ConfigMap 'same'; give one of them another name");
  });

  test('objects of the same name but another kind, namespace or API group are different objects', () => {
    const chart = Testing.chart();
    new k8s.KubeConfigMap(chart, 'A', { metadata: { name: 'x', namespace: 'a' } });
    new k8s.KubeConfigMap(chart, 'B', { metadata: { name: 'x', namespace: 'b' } });
    new k8s.KubeSecret(chart, 'C', { metadata: { name: 'x', namespace: 'a' } });
    new ApiObject(chart, 'D', { apiVersion: 'example.com/v1', kind: 'ConfigMap', metadata: { name: 'x', namespace: 'a' } });
    expect(chartManifests(chart)).toHaveLength(4);
  });
});
