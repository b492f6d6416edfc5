import { spawnSync } from 'child_process';
import YAML from 'yaml';
import backupExample from '../../examples/backup.config';
import { synthesizeHomelab } from '../../lib/synth/synthesize-homelab';
import { findTool, testWith } from '../tools';

const { helperPath } = require('../../scripts/build-promql-check.js') as { helperPath: () => string };

// Prometheus v3.14.0's rule loader (model/rulefmt, promql/parser), built by node scripts/build-promql-check.js;
// without it these tests are skipped, with the reason in their names.
const HELPER = findTool('promql-check (node scripts/build-promql-check.js; needs Go)', [helperPath()], '--version');
const testPromql = testWith(HELPER);

/** Runs the helper over `sources`; its exit status and the problems it prints. */
function check(sources: { name: string; groups: unknown }[]): { status: number | null; problems: string[] } {
  const r = spawnSync(HELPER.command!, [], { input: JSON.stringify(sources), encoding: 'utf8' });
  if (r.status === 2 || r.error) throw new Error(`promql-check failed to run: ${r.stderr}${r.error?.message ?? ''}`);
  return { status: r.status, problems: r.stdout.split('\n').filter((l) => l !== '') };
}

describe('the generated PrometheusRules load in Prometheus v3.14.0 (the kube-prometheus-stack 88.5.3 image)', () => {
  const { tree } = synthesizeHomelab(backupExample);
  const rules = [...tree].flatMap(([file, content]) => (file.endsWith('.yaml') ? YAML.parseAllDocuments(content).map((d) => d.toJSON()) : []))
    .filter((o) => o?.kind === 'PrometheusRule')
    .map((o) => ({ name: `${o.metadata.namespace}/${o.metadata.name}`, groups: o.spec.groups }));

  testPromql('every rule of examples/backup.config.ts parses: expressions, durations, labels, annotation templates', () => {
    expect(rules.map((r) => r.name).sort()).toEqual([
      'cicd/forgejo-db-backup-alerts', 'ddb/ddb-cluster-backup-alerts',
      // the E2E smoke alerts of the reference delivery the example builds on
      'e2e-smoke/e2e-smoke-alerts',
      'restore-drill/ddb-cluster-drill-alerts', 'restore-drill/forgejo-db-drill-alerts',
    ]);
    expect(check(rules)).toEqual({ status: 0, problems: [] });
  });

  testPromql('fails on a broken expression, naming the rule', () => {
    const [first] = rules;
    const groups = structuredClone(first.groups) as any[];
    groups[0].rules[1].expr = groups[0].rules[1].expr.replace('max by (namespace, cnpg_io_cluster) (', 'max by (namespace (');
    const result = check([{ name: 'broken', groups }]);
    expect(result.status).toBe(1);
    expect(result.problems).toHaveLength(1);
    expect(result.problems[0]).toMatch(/^broken: .*rule 2, "CnpgBackupTooOld": could not parse expression/);
  });

  testPromql('fails on a malformed duration and on a broken annotation template', () => {
    const rule = (extra: Record<string, unknown>) => [{ name: 'g', rules: [{ alert: 'A', expr: 'up == 0', for: '2h', ...extra }] }];
    const result = check([
      { name: 'duration', groups: rule({ for: '26 hours' }) },
      { name: 'template', groups: rule({ annotations: { summary: '{{ $labels.job ' } }) },
    ]);
    expect(result.status).toBe(1);
    expect(result.problems).toContainEqual('duration: unknown unit " hours" in duration "26 hours"');
    expect(result.problems).toContainEqual('template: group "g", rule 1, "A": annotation "summary": template: __alert_A:1: unclosed action');
  });
});
