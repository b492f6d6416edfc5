import { formatOutputProblem } from '../../lib/validation/output-problem';
import { validateOutput } from '../../lib/validation/validate-output';
import { container, deployment, podSpec, problemsOf } from './util';

// Built at run time so that no scanner (ours or GitHub's) finds a key or token in this file.
const PEM = ['-----BEGIN', 'OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA\n-----END OPENSSH PRIVATE KEY-----\n'].join(' ');
const TOKEN = `ghp_${'a1B2'.repeat(9)}`;

test('fails on a PEM private key in any file, also in Markdown and scripts', () => {
  expect(problemsOf({ 'README.md': `# Setup\n\n${PEM}`, 'bootstrap/bootstrap.sh': `#!/bin/bash\ncat <<EOF\n${PEM}EOF\n` })).toEqual([
    'README.md: line 3: contains a PEM private key (OPENSSH PRIVATE KEY); keep secrets out of the output: reference a Secret that is created '
      + 'at apply time (a local file, SOPS, or an external secret store)',
    'bootstrap/bootstrap.sh: line 3: contains a PEM private key (OPENSSH PRIVATE KEY); keep secrets out of the output: reference a Secret that '
      + 'is created at apply time (a local file, SOPS, or an external secret store)',
  ]);
});

test('fails on a base64-encoded PEM private key, and not on an encoded certificate', () => {
  const cert = Buffer.from('-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n').toString('base64');
  const secret = {
    apiVersion: 'v1', kind: 'Secret', metadata: { name: 's', namespace: 'a' },
    data: { 'ca.crt': cert, 'tls.pem': Buffer.from(PEM).toString('base64') },
  };
  expect(problemsOf({ 'm.yaml': [secret] })).toEqual([
    'm.yaml: line 8: contains a base64-encoded PEM private key (OPENSSH PRIVATE KEY); keep secrets out of the output: reference a Secret that is '
      + 'created at apply time (a local file, SOPS, or an external secret store)',
  ]);
});

test('fails on a GitHub token, showing only its prefix', () => {
  expect(problemsOf({ 'notes.md': `token: ${TOKEN}\n` })).toEqual([
    'notes.md: line 1: contains a GitHub token (ghp_a1B2...); revoke it on GitHub and keep secrets out of the output: reference a Secret that '
      + 'is created at apply time (a local file, SOPS, or an external secret store)',
  ]);
});

test('fails on literal password-like values in a Secret, a secretGenerator, an env var and a kubectl --from-literal', () => {
  const secret = { apiVersion: 'v1', kind: 'Secret', metadata: { name: 's', namespace: 'a' }, stringData: { username: 'app', password: 'hunter2', sopsValue: 'ENC[AES256_GCM,data:x]' } };
  const env = [{ name: 'DB_PASSWORD', value: 'hunter2' }, { name: 'DB_PASSWORD_FILE_REF', valueFrom: { secretKeyRef: { name: 's', key: 'password' } } }];
  expect(problemsOf({
    'm.yaml': [secret, deployment(podSpec({ containers: [container({ env })] }))],
    'k/kustomization.yaml': 'namespace: a\nsecretGenerator:\n  - name: creds\n    literals:\n      - apiToken=abc\n      - url=https://x\n',
    'run.sh': 'kubectl create secret generic x --from-literal=password=hunter2 --from-literal=token="$TOKEN"\n',
  })).toEqual([
    "k/kustomization.yaml: secretGenerator[0].literals[0]: secretGenerator 'creds' has a literal value for 'apiToken'; use files: with a file "
      + 'supplied at apply time, and keep secrets out of the output: reference a Secret that is created at apply time (a local file, SOPS, '
      + 'or an external secret store)',
    "m.yaml: Secret a/s: stringData.password: Secret holds a literal value for 'password'; keep secrets out of the output: reference a Secret "
      + 'that is created at apply time (a local file, SOPS, or an external secret store)',
    "m.yaml: Deployment apps/app: spec.template.spec.containers[0].env[0].value: environment variable 'DB_PASSWORD' has a literal value; "
      + 'use valueFrom.secretKeyRef to read it from a Secret',
    "run.sh: line 1: passes a literal value for 'password' with --from-literal; read it from a file or variable (--from-file, \"$VAR\") instead",
  ]);
});

test('fails on a secret in a generated document (given as data) at the field that holds it, also in Helm values', () => {
  // GIVEN documents as the synthesis generates them, never serialized
  const config = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c', namespace: 'a' }, data: { note: `token ${TOKEN}` } };
  const files = new Map<string, readonly unknown[]>([['m.yaml', [config]], ['values/app.yaml', [{ image: { pullSecret: PEM } }]]]);
  // WHEN
  const problems = validateOutput(files).map(formatOutputProblem);
  // THEN
  expect(problems).toEqual([
    'm.yaml: ConfigMap a/c: data.note: contains a GitHub token (ghp_a1B2...); revoke it on GitHub and keep secrets out of the output: '
      + 'reference a Secret that is created at apply time (a local file, SOPS, or an external secret store)',
    'values/app.yaml: image.pullSecret: contains a PEM private key (OPENSSH PRIVATE KEY); keep secrets out of the output: reference a Secret '
      + 'that is created at apply time (a local file, SOPS, or an external secret store)',
  ]);
});
