import { App } from 'cdk8s';
import { BootstrapPlan } from '../../lib/homelab/bootstrap-plan';
import { REFERENCE_HOMELAB } from '../../lib/config/defaults';
import { parseHomelabConfig } from '../../lib/config/parse';

function plan(): BootstrapPlan {
  return new BootstrapPlan(new App({ outdir: '.cdk8s.out' }), 'Bootstrap', { config: parseHomelabConfig(REFERENCE_HOMELAB), repoUrl: () => 'git@github.com:o/r.git' });
}

describe('BootstrapPlan wiring', () => {
  test('each step applies what its component requires, and nothing else', () => {
    const p = plan();
    expect(p.cnpgOperator.kustomization?.remoteResources).toHaveLength(1);
    expect(p.cnpgOperator.waits.map((w) => w.kind)).toEqual(['crds-established', 'rollout', 'webhook-serving']);
    expect(p.argocdInstall.waits).toEqual(p.argocd.bootstrapRequirements.waits);
    expect(p.argocdInstall.kustomization).toBe(p.argocd.bootstrapRequirements.kustomization);
    expect(p.repoCredentialStep.preconditions).toEqual(p.repoCredential.bootstrapRequirements.preconditions);
    // Forgejo, then the Job that provisions its administrator, token and repository owner.
    expect(p.forgejoStep.waits).toEqual([...p.forgejo.bootstrapRequirements.waits!, ...p.forgejoAdmin.bootstrapRequirements.waits!]);
    expect(p.forgejoStep.preconditions).toEqual([...p.forgejo.bootstrapRequirements.preconditions!,
      ...p.forgejoAdmin.bootstrapRequirements.preconditions!]);
    expect(p.namespaces.waits).toEqual([]);
    expect(p.argocdRoot.waits).toEqual([]);
  });

  test('every Phase-0 database waits in its cluster\'s step, with a margin over the Job\'s own deadline', () => {
    const p = plan();
    for (const pg of p.postgres.values()) {
      expect(pg.step.waits).toEqual([expect.objectContaining({ kind: 'job-complete', job: pg.wait.name, timeoutSeconds: pg.wait.timeout.toSeconds() + 120 })]);
      for (const db of pg.databases) expect(p.databases.get(db.pgName)).toBe(db);
      expect(p.clusters.get(pg.cluster.name)).toBe(pg.cluster);
    }
  });

  test('Forgejo is provisioned after it runs: administrator, the mirror token Secret, the GitHub owner as organisation', () => {
    const p = plan();
    expect(p.forgejoAdmin.node.dependencies).toContain(p.forgejo);
    expect(p.forgejoAdmin.username).toBe('forgejo-admin');
    expect(p.forgejoAdmin.passwordSecret).toBe('forgejo-admin');
    expect(p.forgejoAdmin.tokenSecret).toEqual({ name: 'forgejo-admin-token', key: 'token' });
    expect(p.forgejoAdmin.repoOwner).toBe('homelab-owner');
    // The config's default exposure reaches the construct.
    expect(p.forgejo.expose).toEqual({ type: 'LoadBalancer' });
    expect(p.forgejo.lanService?.name).toBe('forgejo-lan');
  });

  test('Forgejo starts only after the wait Job proves its database exists', () => {
    const p = plan();
    const pg = p.postgres.get('forgejo-db')!;
    expect(p.forgejo.node.dependencies).toContain(pg.wait);
    expect(p.forgejoStep.dependencies.map((d) => d.step)).toContain(pg.step);
  });

  test('installSopsAgeKey installs the age key as the Secret the repo-server mounts, before Argo CD is applied', () => {
    // GIVEN
    const p = plan();
    expect(p.argocdInstall.preconditions).toEqual([]);

    // WHEN
    p.installSopsAgeKey('~/lab/age.txt');

    // THEN
    expect(p.argocd.sopsAgeSecretKey).toBe('keys.txt');
    expect(p.argocdInstall.preconditions).toEqual([expect.objectContaining({
      kind: 'secret-from-file', namespace: 'argocd', name: 'sops-age', key: 'keys.txt',
      variable: 'SOPS_AGE_KEY_FILE', defaultPath: '~/lab/age.txt', format: 'age-identity',
    })]);
    const volumes = JSON.stringify(p.argocd.bootstrapRequirements.patches!.map((o) => o.toJson()));
    expect(volumes).toContain('"secret":{"optional":true,"secretName":"sops-age"}');
    expect(volumes).toContain('"value":"/sops/keys.txt"');
  });
});
