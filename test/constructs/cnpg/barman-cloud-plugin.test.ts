import { Testing } from 'cdk8s';
import { BootstrapStep } from '../../../lib/constructs/bootstrap/bootstrap-step';
import { BarmanCloudPlugin } from '../../../lib/constructs/cnpg/barman-cloud-plugin';
import { REFERENCE_HOMELAB } from '../../../lib/config/defaults';
import { planSteps } from '../../../lib/output/render-steps';
import { synthesizeHomelab } from '../../../lib/synth/synthesize-homelab';
import { BARMAN_CLOUD_PLUGIN_MANIFEST_URL, BARMAN_CLOUD_PLUGIN_MIN_CNPG_VERSION, CNPG_VERSION } from '../../../lib/shared/pins';

describe('BarmanCloudPlugin', () => {
  test('is the pinned release manifest without its three cert-manager objects, deleted by $patch: delete patches', () => {
    // GIVEN
    const step = new BootstrapStep(Testing.app(), 'Plugin', { stepName: 'barman-cloud-plugin', summary: 'x' });
    // WHEN
    step.addComponent(new BarmanCloudPlugin(step, 'Plugin'));
    // THEN
    const [p] = planSteps([step]);
    expect(step.kustomization).toEqual({ remoteResources: [BARMAN_CLOUD_PLUGIN_MANIFEST_URL] });
    expect(BARMAN_CLOUD_PLUGIN_MANIFEST_URL).toBe('https://github.com/cloudnative-pg/plugin-barman-cloud/releases/download/v0.14.0/manifest.yaml');
    expect(p.objects).toEqual([]);
    expect(p.patches).toEqual([
      { apiVersion: 'cert-manager.io/v1', kind: 'Issuer', metadata: { name: 'selfsigned-issuer', namespace: 'cnpg-system' }, $patch: 'delete' },
      { apiVersion: 'cert-manager.io/v1', kind: 'Certificate', metadata: { name: 'barman-cloud-client', namespace: 'cnpg-system' }, $patch: 'delete' },
      { apiVersion: 'cert-manager.io/v1', kind: 'Certificate', metadata: { name: 'barman-cloud-server', namespace: 'cnpg-system' }, $patch: 'delete' },
    ]);
  });

  test('makes the two TLS Secrets the Service names before the apply, then waits for the CRD and the Deployment', () => {
    const plugin = new BarmanCloudPlugin(Testing.chart(), 'Plugin');
    expect(plugin.bootstrapRequirements.preconditions).toEqual([
      { kind: 'self-signed-tls-secret', namespace: 'cnpg-system', name: 'barman-cloud-client-tls', commonName: 'barman-cloud-client', dnsNames: [],
        usage: 'client', validityDays: 730, renewWithinDays: 30 },
      { kind: 'self-signed-tls-secret', namespace: 'cnpg-system', name: 'barman-cloud-server-tls', commonName: 'barman-cloud', dnsNames: ['barman-cloud'],
        usage: 'server', validityDays: 730, renewWithinDays: 30 },
    ]);
    expect(plugin.bootstrapRequirements.waits).toEqual([
      { kind: 'crds-established', crds: ['objectstores.barmancloud.cnpg.io'], timeoutSeconds: 300 },
      { kind: 'rollout', namespace: 'cnpg-system', deployment: 'barman-cloud', timeoutSeconds: 300 },
    ]);
  });

  test('throws for a timeout below one second', () => {
    expect(() => new BarmanCloudPlugin(Testing.chart(), 'Plugin', { timeoutSeconds: 0 }))
      .toThrow("Plugin: 'timeoutSeconds' must be a positive integer, got 0.");
  });

  test('the pinned CNPG satisfies the plugin\'s minimum', () => {
    const v = (s: string) => s.split('.').map(Number).reduce((n, x) => n * 1000 + x, 0);
    expect(v(CNPG_VERSION)).toBeGreaterThanOrEqual(v(BARMAN_CLOUD_PLUGIN_MIN_CNPG_VERSION));
  });
});

describe('the plugin step of the bootstrap plan', () => {
  const withoutBackups = {
    ...REFERENCE_HOMELAB,
    postgresClusters: Object.fromEntries(Object.entries(REFERENCE_HOMELAB.postgresClusters).map(([k, c]) => [k, { ...c, backup: undefined }])),
  };

  test('is absent when no cluster backs up or restores', () => {
    const { bootstrap, tree } = synthesizeHomelab(withoutBackups);
    expect(bootstrap.barmanCloudPluginStep).toBeUndefined();
    expect([...tree.keys()].some((f) => f.includes('barman-cloud-plugin'))).toBe(false);
  });

  test('comes after the CNPG operator; the Phase-0 cluster and the root app (for Argo CD-delivered clusters) after it', () => {
    const { bootstrap } = synthesizeHomelab(REFERENCE_HOMELAB);
    const order = planSteps(bootstrap.steps).map((p) => p.fileName);
    expect(order.slice(3, 6)).toEqual(['04-cnpg-operator', '05-barman-cloud-plugin', '06-postgres-forgejo-db.yaml']);
    expect(bootstrap.barmanCloudPluginStep!.dependencies.map((d) => d.step.stepName)).toEqual(['cnpg-operator']);
    expect(bootstrap.argocdRoot.dependencies.map((d) => d.step.stepName)).toContain('barman-cloud-plugin');
    // the Phase-0 cluster's credentials: from a local env file, before its Cluster
    expect(bootstrap.postgres.get('forgejo-db')!.step.preconditions).toEqual([expect.objectContaining({
      kind: 'secret-from-env-file', namespace: 'cicd', name: 'homelab-backup-s3', variable: 'HOMELAB_BACKUP_S3_ENV_FILE',
      defaultPath: '~/.config/homelab/homelab-backup-s3.env', envKeys: ['ACCESS_KEY_ID', 'ACCESS_SECRET_KEY'],
    })]);
  });

  test('the plan and its Mermaid diagram show the derived order', () => {
    const { tree } = synthesizeHomelab(REFERENCE_HOMELAB);
    const readme = tree.get('README.md')!;
    expect(readme).toContain('  wait_cnpg_operator --> step_barman_cloud_plugin\n');
    expect(readme).toContain('  wait_barman_cloud_plugin --> step_postgres_forgejo_db\n');
    expect(readme).toContain('  wait_barman_cloud_plugin --> step_argocd_root\n');
    expect(readme).not.toMatch(/step_postgres_forgejo_db --> step_barman_cloud_plugin|wait_postgres_forgejo_db --> step_barman_cloud_plugin/);
  });

  test('a failed wait for the Phase-0 cluster shows why the plugin is stuck: the phase reason and the archiving condition', () => {
    const { bootstrap } = synthesizeHomelab(REFERENCE_HOMELAB);
    const wait = bootstrap.postgres.get('forgejo-db')!.step.waits.find((w) => w.kind === 'job-complete');
    expect(wait?.kind === 'job-complete' ? wait.watched : []).toEqual([
      { resource: 'clusters.postgresql.cnpg.io/forgejo-db', messagePath: '{.status.phase}' },
      { resource: 'clusters.postgresql.cnpg.io/forgejo-db', messagePath: '{.status.phaseReason}' },
      { resource: 'clusters.postgresql.cnpg.io/forgejo-db', messagePath: '{.status.conditions[?(@.type=="ContinuousArchiving")].message}' },
    ]);
    const { bootstrap: noBackups } = synthesizeHomelab(withoutBackups);
    const plain = noBackups.postgres.get('forgejo-db')!.step.waits.find((w) => w.kind === 'job-complete');
    expect(plain?.kind === 'job-complete' ? plain.watched.map((x) => x.messagePath) : []).toEqual(['{.status.phase}']);
  });
});
