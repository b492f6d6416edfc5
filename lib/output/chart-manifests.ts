import { ApiObject, Chart } from 'cdk8s';

/** A manifest of a chart and the `ApiObject` that defined it. */
export interface ChartManifest {
  readonly obj: ApiObject;
  readonly json: Record<string, any>;
}

/** What identifies an object in a chart: its API group and kind, namespace and name. */
function identity(apiVersion: string, kind: string, namespace: string | undefined, name: string): string {
  return `${apiVersion.split('/').length > 1 ? apiVersion.split('/')[0] : ''}/${kind}/${namespace ?? ''}/${name}`;
}

/**
 * The chart's manifests as cdk8s renders them (`chart.toJson()`: the app's dependencies resolved, every
 * validation run, objects in dependency order), each paired with the `ApiObject` that defined it, so that the
 * output layout can place objects by what they are rather than by their text.
 *
 * @throws when two objects of the chart share group, kind, namespace and name (they would overwrite each other
 *   when applied)
 */
export function chartManifests(chart: Chart): ChartManifest[] {
  const byIdentity = new Map<string, ApiObject>();
  for (const obj of chart.node.findAll()) {
    if (!ApiObject.isApiObject(obj) || Chart.of(obj) !== chart) continue;
    const id = identity(obj.apiVersion, obj.kind, obj.metadata.namespace, obj.name);
    const other = byIdentity.get(id);
    if (other) {
      throw new Error(`${chart.node.path}: '${other.node.path}' and '${obj.node.path}' both define ${obj.kind} '${obj.name}'; `
        + 'give one of them another name');
    }
    byIdentity.set(id, obj);
  }
  return chart.toJson().map((json) => {
    const obj = byIdentity.get(identity(json.apiVersion, json.kind, json.metadata?.namespace, json.metadata?.name));
    if (!obj) throw new Error(`${chart.node.path}: rendered ${json.kind} '${json.metadata?.name}' matches no object of the chart`);
    return { obj, json };
  });
}
