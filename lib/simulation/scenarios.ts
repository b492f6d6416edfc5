import { parseAllDocuments } from 'yaml';
import { Faults } from './controllers';
import { SimulationInput } from './bring-up';
import { syncWave } from './argocd-sync';

type Obj = Record<string, any>;

/** A bring-up scenario: the faults it injects into a given output, and the text that names its cause. */
export interface Scenario {
  readonly name: string;
  readonly description: string;
  readonly faults: Faults;
  /** What the final state's message must contain; undefined for the happy path. */
  readonly cause?: string;
}

function allObjects(input: SimulationInput): { obj: Obj; phase0: boolean }[] {
  const out: { obj: Obj; phase0: boolean }[] = [];
  for (const p of input.steps) for (const obj of p.objects) out.push({ obj, phase0: true });
  for (const [file, text] of input.tree) {
    if (file.startsWith('bootstrap/') || !file.endsWith('.yaml')) continue;
    for (const d of parseAllDocuments(text)) {
      const obj = d.toJS() as Obj;
      if (obj && typeof obj === 'object') out.push({ obj, phase0: false });
    }
  }
  return out;
}

/** The scenarios that apply to `input`, by name; targets are chosen from the output, deterministically. */
export function scenariosFor(input: SimulationInput): Scenario[] {
  const objs = allObjects(input);
  const byName = (a: Obj, b: Obj) => syncWave(a) - syncWave(b) || (a.metadata.name < b.metadata.name ? -1 : 1);
  const of = (kind: string, phase0: boolean) => objs.filter((o) => o.obj.kind === kind && o.phase0 === phase0).map((o) => o.obj).sort(byName);
  const apps = of('Application', false).filter((a) => a.metadata.name !== 'root');
  const list: Scenario[] = [{ name: 'happy-path', description: 'every controller does its job', faults: {} }];

  for (const phase0 of [true, false]) {
    const db = of('Database', phase0)[0];
    if (db) {
      const owner = db.spec.owner as string;
      list.push({
        name: `database-rejected${phase0 ? '-phase0' : '-argocd'}`,
        description: `CNPG cannot create Database ${db.metadata.namespace}/${db.metadata.name}: role '${owner}' is missing`,
        faults: { missingRoles: [{ cluster: db.spec.cluster.name, role: owner }] },
        cause: `role "${owner}" does not exist`,
      });
    }
    const cluster = of('Cluster', phase0)[0];
    if (cluster) {
      const reason = 'spec.storage.size: Invalid value: "0": the storage size must be a positive quantity';
      list.push({
        name: `cluster-invalid${phase0 ? '-phase0' : '-argocd'}`,
        description: `CNPG rejects the definition of Cluster ${cluster.metadata.namespace}/${cluster.metadata.name}`,
        faults: { invalidClusters: [{ cluster: cluster.metadata.name, reason }] },
        cause: 'Invalid cluster definition',
      });
    }
  }
  // A git-path Application after wave 0, so the failure is the child's own and not its chart's or plugin's.
  const plain = (a: Obj) => ((a.spec.sources ?? [a.spec.source]) as Obj[]).every((s) => s.chart === undefined && s.plugin === undefined);
  const failing = apps.find((a) => syncWave(a) >= 1 && plain(a)) ?? apps.find((a) => syncWave(a) >= 1);
  if (failing) {
    const message = `Deployment.apps "${failing.metadata.name}" is invalid: spec.template.spec.containers[0].image: Required value`;
    list.push({ name: 'child-sync-fails', description: `the API server rejects an object of Application ${failing.metadata.name}`,
      faults: { rejectedApplies: [{ app: failing.metadata.name, message }] }, cause: message });
  }
  if (apps.some((a) => (a.spec.sources ?? [a.spec.source]).some((s: Obj) => s.plugin?.name === 'sops'))) {
    list.push({ name: 'age-key-missing', description: 'Secret argocd/sops-age was never created: the sops plugin cannot decrypt',
      faults: { missingSecrets: ['argocd/sops-age'] }, cause: 'Failed to get the data key required to decrypt the SOPS file' });
  }
  const probe = 'Readiness probe failed: HTTP probe failed with statuscode: 503';
  list.push({ name: 'forgejo-never-ready', description: 'Forgejo\'s pods never pass their readiness probe',
    faults: { neverReadyDeployments: [{ namespace: forgejoNamespace(input), name: 'forgejo', reason: probe }] },
    cause: 'Deployment "forgejo" exceeded its progress deadline' });
  const chart = apps.flatMap((a) => (a.spec.sources ?? [a.spec.source]) as Obj[]).find((s) => s.chart !== undefined);
  if (chart) {
    // Helm's error for a repository it cannot reach (helm pkg/repo; not taken from a source fetched here).
    const message = `looks like "${chart.repoURL}" is not a valid chart repository or cannot be reached: Get "${chart.repoURL}/index.yaml": dial tcp: i/o timeout`;
    list.push({ name: 'chart-repo-unreachable', description: `Helm repository ${chart.repoURL} cannot be reached`,
      faults: { unreachableChartRepos: [{ url: chart.repoURL, message }] }, cause: 'error fetching chart' });
  }
  return list;
}

function forgejoNamespace(input: SimulationInput): string {
  for (const p of input.steps) for (const o of p.objects) if (o.kind === 'Deployment' && o.metadata?.name === 'forgejo') return o.metadata.namespace;
  return 'cicd';
}
