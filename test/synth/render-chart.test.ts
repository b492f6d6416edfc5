import { ApiObject, App, Chart, Testing, Yaml } from 'cdk8s';
import { Construct } from 'constructs';
import { Document } from 'yaml';
import { ChartRenderer, renderChart, renderYaml, YAML_11_NON_STRING_SCALARS } from '../../lib/synth/render-chart';

/** An app of three charts: `b` depends on `a` across charts, objects depend on each other inside `b`. */
function threeCharts(): { app: App; a: Chart; b: Chart; c: Chart } {
  const app = Testing.app();
  const a = new Chart(app, 'a', { disableResourceNameHashes: true });
  const b = new Chart(app, 'b', { disableResourceNameHashes: true });
  const c = new Chart(app, 'c', { disableResourceNameHashes: true });
  const cm = (scope: Construct, id: string) =>
    new ApiObject(scope, id, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: id.toLowerCase() }, data: { z: '1', a: 'yes' } });
  const base = cm(a, 'Base');
  const group = new Construct(b, 'Group');
  const late = cm(group, 'Late');
  const early = cm(b, 'Early');
  cm(b, 'Loose');
  late.addDependency(early);
  group.node.addDependency(base);
  cm(c, 'Only');
  return { app, a, b, c };
}

describe('renderChart', () => {
  test('returns exactly what chart.toJson() returns, chart by chart', () => {
    // GIVEN two identical apps
    const fast = threeCharts();
    const slow = threeCharts();

    // WHEN one is rendered by renderChart and the other by cdk8s
    const rendered = [fast.a, fast.b, fast.c].map(renderChart);
    const expected = [slow.a, slow.b, slow.c].map((chart) => chart.toJson());

    // THEN the JSON and its order are the same
    expect(rendered).toEqual(expected);
    expect(JSON.stringify(rendered)).toBe(JSON.stringify(expected));
  });

  test('orders a chart\'s objects by their dependencies', () => {
    const { b } = threeCharts();
    const names = renderChart(b).map((o) => o.metadata.name);
    expect(names.indexOf('early')).toBeLessThan(names.indexOf('late'));
  });

  test('a construct dependency across charts makes the charts depend on each other', () => {
    const { app, a, b } = threeCharts();
    ChartRenderer.of(app);
    expect(b.node.dependencies).toContain(a);
    expect(app.charts.indexOf(a)).toBeLessThan(app.charts.indexOf(b));
  });

  test('validates the app once for all its charts', () => {
    // GIVEN a validation that counts its runs
    const { a, b, c } = threeCharts();
    let runs = 0;
    a.node.addValidation({ validate: () => { runs++; return []; } });

    // WHEN every chart is rendered, twice
    for (const chart of [a, b, c, a, b, c]) renderChart(chart);

    // THEN the validation ran once (cdk8s's chart.toJson() runs it once per call)
    expect(runs).toBe(1);
  });

  test('prepares the app again after a construct is added', () => {
    // GIVEN a rendered app
    const { app, a } = threeCharts();
    let runs = 0;
    a.node.addValidation({ validate: () => { runs++; return []; } });
    renderChart(a);

    // WHEN an object is added and the chart rendered again
    new ApiObject(a, 'Added', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'added' } });
    const names = renderChart(a).map((o) => o.metadata.name);

    // THEN the new object is there and the validations ran again
    expect(names).toContain('added');
    expect(runs).toBe(2);
    expect(ChartRenderer.of(app)).toBe(ChartRenderer.of(a));
  });

  test('throws the message cdk8s throws when a validation fails', () => {
    // GIVEN two identical apps with a failing validation
    const failing = () => {
      const { a } = threeCharts();
      a.node.addValidation({ validate: () => ['replicas must be at least 1, got 0'] });
      return a;
    };
    const expected = (() => {
      try {
        failing().toJson();
      } catch (e) {
        return (e as Error).message;
      }
      return 'no error';
    })();

    // THEN renderChart fails with the same message
    expect(expected).toMatch(/^Validation failed with the following errors:\n {2}\[a\] replicas must be at least 1, got 0$/);
    expect(() => renderChart(failing())).toThrow(expected);
  });

  test('chartObjects pairs each JSON with its ApiObject', () => {
    const { b } = threeCharts();
    for (const { obj, json } of ChartRenderer.of(b).chartObjects(b)) expect(json.metadata.name).toBe(obj.name);
  });
});

/** A deterministic generator of awkward JSON values: strings built from YAML indicators, keywords and newlines. */
function awkwardValues(seed: number): () => unknown {
  let s = seed;
  const rnd = () => {
    s = (s * 1103515245 + 12345) & 0x7fffffff;
    return s / 0x7fffffff;
  };
  const pick = <T>(a: readonly T[]): T => a[Math.floor(rnd() * a.length)];
  const atoms = ['a', 'b c', ' ', ':', '#', '-', '?', '- ', '"', '\'', '\n', '\n\n', ' \n', '\t', 'yes', 'No', 'on', 'y', '0x1F', '1:20', '012',
    '1e3', '.5', '~', 'null', '<<', '---', '...', '%', '{', '}', '[', ']', ',', '&', '*', '!', '|', '>', '@', '`', 'ü', '€', '\u0007', 'k: v',
    ' #c', 'x#y', '2024-01-01', 'true', '', 'k8s/infra/iam', '${VAR}', '\\', '\\n'];
  const str = () => Array.from({ length: Math.floor(rnd() * 6) }, () => pick(atoms)).join('');
  const value = (depth: number): unknown => {
    const r = rnd();
    if (depth > 3 || r < 0.45) {
      const t = rnd();
      if (t < 0.6) return str();
      if (t < 0.75) return Math.floor(rnd() * 2000 - 1000);
      if (t < 0.8) return rnd() * 100;
      return t < 0.9 ? rnd() < 0.5 : null;
    }
    if (r < 0.7) {
      const o: Record<string, unknown> = {};
      for (let i = Math.floor(rnd() * 4); i > 0; i--) o[str() || 'k'] = value(depth + 1);
      return o;
    }
    return Array.from({ length: Math.floor(rnd() * 4) }, () => value(depth + 1));
  };
  return () => value(0);
}

describe('renderYaml', () => {
  test('quotes exactly the strings the YAML 1.1 schema of the yaml library reads as other types', () => {
    const schema = new Document(null, { version: '1.1' }).schema as unknown as {
      tags: { tag: string; default?: unknown; test?: RegExp }[];
      compat?: { tag: string; default?: unknown; test?: RegExp }[];
    };
    const library = [...schema.tags, ...(schema.compat ?? [])]
      .filter((t) => t.default && t.tag !== 'tag:yaml.org,2002:str' && t.test)
      .map((t) => String(t.test));
    expect(YAML_11_NON_STRING_SCALARS.map(String)).toEqual(library);
  });

  test('writes what Yaml.stringify writes for a thousand awkward documents', () => {
    const next = awkwardValues(7);
    for (let i = 0; i < 1000; i++) {
      const docs = [{ root: next(), other: next() }, [next()], next()];
      expect(renderYaml(docs)).toBe(Yaml.stringify(...docs));
    }
  });

  test('writes what Yaml.stringify writes for the homelab\'s kinds of strings', () => {
    const docs = [{
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'x', annotations: { 'argocd.argoproj.io/sync-wave': '3', 'argocd.argoproj.io/sync-options': 'Prune=false' } },
      data: {
        'script.sh': '#!/bin/sh\nset -eu\n\nif [ -n "$X" ]; then\n  echo "a: b" # comment\nfi\n',
        'no-trailing-newline': 'line 1\nline 2',
        'indented-first-line': '  two spaces\nthen text\n',
        'trailing-spaces': 'text\nend  ',
        'quotes': 'it\'s "quoted"',
        'double': 'say "hi"',
        'yaml-keywords': ['yes', 'no', 'on', 'off', 'y', 'n', '~', 'null', 'true', '0755', '0x1F', '1e3', '12:30', '2024-01-01', '<<', ''],
        'indicators': ['- a', '? b', ': c', '#d', '&e', '*f', '!g', '|h', '>i', '%j', '@k', '`l', '{m}', '[n]', 'a: b', 'a #b', 'end:', 'end '],
        'unicode': 'héllo wörld ✓',
      },
      spec: { empty: {}, none: [], nested: [[], [{}], [[1, 2]], { a: [] }], replicas: 0, ratio: 0.25, big: 1e21, flag: false, nothing: null },
    }];
    expect(renderYaml(docs)).toBe(Yaml.stringify(...docs));
  });

  test('hands documents it does not write itself to Yaml.stringify', () => {
    const shared = { a: 1 };
    const cases: unknown[][] = [
      [{ alias: shared, again: shared }],
      [{ undef: undefined }],
      [{ neg: -0, nan: NaN, inf: -Infinity }],
      [{ date: new Date(0) }],
      [{ control: 'bell\u0007' }],
      [{ trailing: 'text\n\n' }, { whitespace: 'text\n  ' }],
      [{ marker: '--- not a document' }, { '': 'empty key' }],
      ['top-level scalar', 42, null, {}, []],
      [undefined, { a: 1 }],
    ];
    for (const docs of cases) expect(renderYaml(docs)).toBe(Yaml.stringify(...docs));
  });
});
