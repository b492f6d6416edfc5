import { synthesizeHomelab } from '../../lib/synth/synthesize-homelab';
import { cnpgClusterRefusals, diffFields, formatPath, pinnedCrdImmutableFields, reviewTrees } from '../../lib/review';
import { editDocs, referenceCopy } from './review-helpers';

describe('reviewTrees', () => {
  let base: Map<string, string>;
  beforeAll(() => { base = synthesizeHomelab(referenceCopy()).tree; });

  const classes = (review: ReturnType<typeof reviewTrees>, kind: string, name: string) =>
    [...new Set(review.changes.find((c) => c.id.kind === kind && c.id.name === name)!.findings.map((f) => f.class))].sort();

  test('the same tree has no changes', () => {
    expect(reviewTrees(base, base)).toEqual({ changes: [], runbookSteps: [] });
  });

  test('removing an auto-pruning Application destroys data: Argo CD deletes everything it managed', () => {
    // GIVEN a config without the homarr Application (automated sync with prune: true)
    const config = referenceCopy();
    delete config.argocd.applications.homarr;
    // WHEN
    const review = reviewTrees(base, synthesizeHomelab(config).tree);
    // THEN
    const removed = review.changes.find((c) => c.id.kind === 'Application' && c.id.name === 'homarr')!;
    expect(removed).toMatchObject({ change: 'removed', application: 'homarr', wave: expect.any(Number) });
    expect(removed.findings).toContainEqual(expect.objectContaining({ class: 'destroys-data', message: expect.stringContaining('prune: true') }));
  });

  test('turning backups on adds the plugin step: its delete patches read as removals from the upstream manifest', () => {
    // GIVEN the reference homelab without any backup, then with its backups
    const config = referenceCopy();
    for (const c of Object.values<any>(config.postgresClusters)) delete c.backup;
    delete config.forgejo.backup;
    // WHEN
    const review = reviewTrees(synthesizeHomelab(config).tree, base);
    // THEN no Certificate or Issuer is added, only the patches that delete them
    const plugin = review.changes.filter((c) => c.step === '05-barman-cloud-plugin' && c.file.includes('patch-'));
    expect(plugin.map((c) => `${c.change} ${c.id.kind} ${c.id.name}`).sort()).toEqual([
      'added $patch: delete of Certificate barman-cloud-client',
      'added $patch: delete of Certificate barman-cloud-server',
      'added $patch: delete of Issuer selfsigned-issuer',
    ]);
    expect(review.changes.some((c) => c.id.kind === 'Certificate' || c.id.kind === 'Issuer')).toBe(false);
  });

  test('a change of Phase 0 lists the bootstrap steps to re-run', () => {
    const config = referenceCopy();
    config.postgresClusters['forgejo-db'].instances = 2;
    const review = reviewTrees(base, synthesizeHomelab(config).tree);
    expect(review.runbookSteps).toEqual(['06-postgres-forgejo-db']);
    expect(classes(review, 'Cluster', 'forgejo-db')).toEqual(['needs-runbook']);
  });

  test('a renamed PVC is a delete and a create: the old claim destroys data', () => {
    const renamed = editDocs(base, 'bootstrap/07-forgejo.yaml', (doc) => JSON.parse(JSON.stringify(doc).replace(/"forgejo-data"/g, '"forgejo-repositories"')));
    const review = reviewTrees(base, renamed);
    const claims = review.changes.filter((c) => c.id.kind === 'PersistentVolumeClaim').map((c) => `${c.change} ${c.id.name}`);
    expect(claims).toEqual(['removed forgejo-data', 'added forgejo-repositories']);
    const removed = review.changes.find((c) => c.change === 'removed')!;
    expect(removed.findings).toContainEqual(expect.objectContaining({ class: 'destroys-data', message: expect.stringContaining('renamed to PersistentVolumeClaim cicd/forgejo-repositories?') }));
  });

  test('a CRD field frozen by CEL breaks apply: a Database moved to another cluster', () => {
    const moved = editDocs(base, 'data-schemas/ddb-cluster.yaml', (doc) => (doc.kind === 'Database' && doc.metadata.name === 'authentik'
      ? { ...doc, spec: { ...doc.spec, cluster: { name: 'other' } } } : doc));
    const change = reviewTrees(base, moved).changes.find((c) => c.id.name === 'authentik')!;
    expect(change).toMatchObject({ application: 'data-schemas', wave: 6 });
    expect(change.findings).toContainEqual(expect.objectContaining({ class: 'breaks-apply', message: 'spec.cluster is immutable: cluster reference is immutable after creation' }));
  });

  test('a new release manifest URL moves a pin, with the old and new version', () => {
    const moved = new Map(base);
    moved.set('bootstrap/04-cnpg-operator/kustomization.yaml', base.get('bootstrap/04-cnpg-operator/kustomization.yaml')!.replace(/1\.30\.0/g, '1.30.1'));
    const change = reviewTrees(base, moved).changes.find((c) => c.id.kind === 'Kustomization')!;
    expect(change.findings).toContainEqual(expect.objectContaining({ class: 'moves-pin', from: 'v1.30.0', to: 'v1.30.1' }));
  });

  test('the CEL-frozen fields come from the generated schemas of the pinned CRDs', () => {
    expect(pinnedCrdImmutableFields().map((f) => `${f.kind} ${f.path}`)).toEqual(expect.arrayContaining(['Database spec.cluster', 'Cluster spec.serviceAccountName']));
  });
});

describe('diffFields', () => {
  test('lists Kubernetes merges by name are compared by name, not by index', () => {
    const a = { env: [{ name: 'A', value: '1' }, { name: 'B', value: '2' }] };
    const b = { env: [{ name: 'X', value: '0' }, { name: 'A', value: '1' }, { name: 'B', value: '3' }] };
    expect(diffFields(a, b).map((f) => `${formatPath(f.path)} ${JSON.stringify(f.old)} ${JSON.stringify(f.new)}`))
      .toEqual(['env[B].value "2" "3"', 'env[X] undefined {"name":"X","value":"0"}']);
  });
});

describe("cnpgClusterRefusals (CNPG v1.30.0's Cluster webhook)", () => {
  const cluster = (spec: object) => ({ spec: { imageName: 'ghcr.io/cloudnative-pg/postgresql:17.2', storage: { size: '10Gi' }, ...spec } });
  test.each([
    ['a storage shrink', { storage: { size: '5Gi' } }, "can't shrink existing storage from 10Gi to 5Gi"],
    ['a major downgrade', { imageName: 'ghcr.io/cloudnative-pg/postgresql:16.4' }, "can't downgrade from major 17 to 16"],
    ['walStorage removed', undefined, 'walStorage cannot be disabled once configured'],
    ['a changed postgresUID', { postgresUID: 1000 }, 'UID is an immutable field in the spec'],
  ])('refuses %s', (_what, spec, message) => {
    const old = spec === undefined ? cluster({ walStorage: { size: '1Gi' } }) : cluster({});
    const next = spec === undefined ? cluster({}) : cluster(spec);
    expect(cnpgClusterRefusals(old, next).map((r) => r.message)).toContain(message);
  });
  test('refuses a major upgrade below 16, accepts one to 18 and a storage growth', () => {
    expect(cnpgClusterRefusals(cluster({ imageName: 'x/postgresql:14.1' }), cluster({ imageName: 'x/postgresql:15.3' })).map((r) => r.message))
      .toEqual(['major upgrades are only supported to version 16 or higher']);
    expect(cnpgClusterRefusals(cluster({}), cluster({ imageName: 'x/postgresql:18.4-system-trixie', storage: { size: '20Gi' } }))).toEqual([]);
  });
});
