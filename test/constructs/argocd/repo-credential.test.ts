import { Testing } from 'cdk8s';
import { BootstrapStep } from '../../../lib/constructs/bootstrap/bootstrap-step';
import { RepoCredential, RepoCredentialProps } from '../../../lib/constructs/argocd/repo-credential';

const URL = 'git@github.com:homelab-owner/homelab.git';

describe('RepoCredential', () => {
  test('defaults: an SSH deploy key read from ~/.ssh/argocd_seed into Secret argocd/homelab-repo', () => {
    const credential = new RepoCredential(Testing.chart(), 'Credential', { url: URL });
    expect(credential.namespace).toBe('argocd');
    expect(credential.name).toBe('homelab-repo');
    expect(credential.auth).toBe('ssh');
    expect(credential.secretFile).toBe('~/.ssh/argocd_seed');
    expect(credential.secretFileCheckedAt).toBe('preflight');
    expect(credential.bootstrapRequirements.preconditions![0]).not.toHaveProperty('checkedAt');
    expect(credential.secretKey).toBe('sshPrivateKey');
  });

  test('generates a repository Secret naming the key file, never its content', () => {
    const credential = new RepoCredential(Testing.chart(), 'Credential', { url: URL });
    const k = credential.bootstrapRequirements.kustomization!;
    expect(k.namespace).toBe('argocd');
    expect(k.remoteResources).toEqual([]);
    expect(k.extra).toEqual({
      secretGenerator: [{
        name: 'homelab-repo',
        files: ['sshPrivateKey'],
        literals: ['type=git', `url=${URL}`],
        options: {
          disableNameSuffixHash: true,
          labels: { 'argocd.argoproj.io/secret-type': 'repository', 'app.kubernetes.io/part-of': 'argocd' },
        },
      }],
    });
  });

  test('the runbook copies the local file in first, under the generator\'s file name', () => {
    const credential = new RepoCredential(Testing.chart(), 'Credential', { url: URL, secretFile: '~/keys/seed' });
    expect(credential.bootstrapRequirements.preconditions).toEqual([expect.objectContaining({
      kind: 'local-file', variable: 'SEED_DEPLOY_KEY', defaultPath: '~/keys/seed', copyAs: 'sshPrivateKey', format: 'ssh-private-key',
    })]);
    expect((credential.bootstrapRequirements.preconditions![0] as { hint: string }).hint).toContain('ssh-keygen -t ed25519 -f ~/keys/seed');
  });

  test('all props: an HTTP token for Forgejo', () => {
    const props: Required<RepoCredentialProps> = {
      url: 'http://forgejo-http.cicd.svc.cluster.local:3000/o/homelab.git',
      namespace: 'gitops',
      name: 'homelab-repo-forgejo',
      auth: 'http-token',
      username: 'reader',
      secretFile: '~/.config/homelab/forgejo-read-token',
      secretFileCheckedAt: 'step',
    };
    const credential = new RepoCredential(Testing.chart(), 'Credential', props);
    const generator = (credential.bootstrapRequirements.kustomization!.extra!.secretGenerator as any[])[0];
    expect(generator.files).toEqual(['password']);
    expect(generator.literals).toEqual(['type=git', `url=${props.url}`, 'username=reader']);
    expect(credential.bootstrapRequirements.preconditions![0]).toEqual(expect.objectContaining({ variable: 'FORGEJO_READ_TOKEN', copyAs: 'password', format: 'token', checkedAt: 'step' }));
    expect(credential.secretFileCheckedAt).toBe('step');
  });

  test('defines no object: nothing secret can reach the output', () => {
    const chart = Testing.chart();
    new RepoCredential(chart, 'Credential', { url: URL });
    expect(Testing.synth(chart)).toEqual([]);
  });

  test('a bootstrap step applies it as its kustomization and precondition', () => {
    const step = new BootstrapStep(Testing.app(), 'Repo', { stepName: 'repo', summary: 'x' });
    const credential = new RepoCredential(step, 'Credential', { url: URL });
    step.addComponent(credential);
    expect(step.kustomization).toBe(credential.bootstrapRequirements.kustomization);
    expect(step.preconditions).toEqual(credential.bootstrapRequirements.preconditions);
  });
});
