import YAML from 'yaml';
import backupExample from '../../examples/backup.config';
import { synthesizeHomelab } from '../../lib/synth/synthesize-homelab';

function docs(content: string | undefined): any[] {
  if (content === undefined) throw new Error('no such file');
  return YAML.parseAllDocuments(content).map((d) => d.toJSON()).filter((d) => d);
}

describe('examples/backup.config.ts: Forgejo\'s repositories restored and backed up (synthesized here, never into dist/)', () => {
  // synthesizeHomelab validates every object against the pinned Kubernetes and CRD schemas, or throws.
  const { tree } = synthesizeHomelab(backupExample);
  const forgejoStep = docs(tree.get('bootstrap/07-forgejo.yaml'));
  const runbook = tree.get('bootstrap/bootstrap.sh')!;

  test('Forgejo\'s pod restores the latest dump before Forgejo starts, and the CronJob keeps dumping to the same folder', () => {
    const deployment = forgejoStep.find((o) => o.kind === 'Deployment' && o.metadata.name === 'forgejo');
    const [restore] = deployment.spec.template.spec.initContainers;
    expect(restore.name).toBe('restore-data');
    const env = Object.fromEntries(restore.env.map((e: any) => [e.name, e.value ?? e.valueFrom]));
    expect([env.REMOTE, env.DUMP]).toEqual(['STORE:homelab-backups/forgejo', 'latest']);
    const cronJob = forgejoStep.find((o) => o.kind === 'CronJob' && o.metadata.name === 'forgejo-backup');
    const upload = cronJob.spec.jobTemplate.spec.template.spec.containers[0];
    expect(upload.env).toContainEqual({ name: 'REMOTE', value: env.REMOTE });
  });

  test('the runbook installs the credential Secret from its env file once in the step, and waits up to an hour for the restoring rollout', () => {
    expect(runbook.match(/^install_secret_env_file \S+ cicd homelab-backup-s3 /gm)).toHaveLength(1);
    expect(runbook).toMatch(/^wait_rollout cicd deployment\/forgejo 3600$/m);
  });
});
