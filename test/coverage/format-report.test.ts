import { auditCoverage, CoverageReport } from '../../lib/coverage/audit-coverage';
import { formatReport, reportJson } from '../../lib/coverage/format-report';
import { scanRepoTree } from '../../lib/coverage/repo-tree';
import { encryptedSecret, manifest, referenceCheckout, synthesized, TempCheckouts } from './fixture';

const checkouts = new TempCheckouts();
afterEach(() => checkouts.cleanup());

function auditFiles(extra: Record<string, string>, drop: string[] = []): CoverageReport {
  const files: Record<string, string> = { ...referenceCheckout(), ...extra };
  for (const d of drop) delete files[d];
  return auditCoverage(synthesized().model, scanRepoTree(checkouts.write(files)));
}

test('clean: a header and one summary line', () => {
  const report = auditFiles({});
  expect(formatReport(report)).toBe([
    `Coverage audit of ${report.repo}: ${report.applications} Applications, ${report.files} files.`,
    '',
    'No findings: every deployable directory is reconciled by exactly one Application.',
    '',
  ].join('\n'));
});

test('findings are grouped under headings with advice, in a fixed group order, and counted', () => {
  // GIVEN an orphan, a missing values file, a stale Application and a misnamed secret
  const report = auditFiles({
    'applications/sqs/argocd/app.yaml': manifest('Application', 'kmsvc-root', 'argoproj.io/v1alpha1'),
    'k8s/apps/duckdns/extra/cronjob.yaml': manifest('CronJob', 'refresh', 'batch/v1'),
    'k8s/secrets/iam/vault.enc.yml': encryptedSecret('vault'),
  }, ['k8s/apps/homarr/values.yaml']);
  // THEN
  expect(formatReport(report)).toBe([
    `Coverage audit of ${report.repo}: ${report.applications} Applications, ${report.files} files.`,
    '',
    'Orphans (1): manifests no Application reconciles. Wire each into an Application, list its directory in argocd.unmanaged, or delete it.',
    '  - k8s/apps/duckdns/extra: 1 manifest file (CronJob) that no Application reconciles.',
    '',
    'Missing (1): paths Applications read that are not in the tree.',
    '  - \'homarr\' reads the values file k8s/apps/homarr/values.yaml through $values (argocd.applications.homarr.sources[0].valueFiles[0]), '
      + 'which does not exist; the sync would fail.',
    '',
    'Second app-of-apps (1): Application and ApplicationSet manifests outside the generated argocd/ folder.',
    '  - applications/sqs/argocd/app.yaml: Application \'kmsvc-root\' outside k8s/generated/argocd, applied by no Application: stale. '
      + 'Delete it, or move its Applications into argocd.applications.',
    '',
    'Unmatched secrets (1): encrypted files the sops-secrets Application never applies.',
    '  - k8s/secrets/iam/vault.enc.yml: encrypted, but \'sops-secrets\' decrypts only files named *.enc.yaml. Rename it to vault.enc.yaml.',
    '',
    '4 findings.',
    '',
  ].join('\n'));
});

test('JSON: fixed key order, every group present, findings counted, optional fields left out', () => {
  const report = auditFiles({ 'k8s/apps/duckdns/extra/cronjob.yaml': manifest('CronJob', 'refresh', 'batch/v1') }, ['k8s/apps/homarr/values.yaml']);
  const text = reportJson(report);
  const json = JSON.parse(text);
  expect(Object.keys(json)).toEqual(['repo', 'applications', 'files', 'findings', 'orphans', 'duplicates', 'missing', 'deadAggregators',
    'secondAppOfApps', 'unmatchedSecrets']);
  expect(json.findings).toBe(2);
  expect(json.orphans).toEqual([{
    path: 'k8s/apps/duckdns/extra', type: 'directory', manifests: 1, kinds: ['CronJob'],
    message: 'k8s/apps/duckdns/extra: 1 manifest file (CronJob) that no Application reconciles.',
  }]);
  expect(Object.keys(json.missing[0])).toEqual(['path', 'type', 'applications', 'configPath', 'generated', 'message']);
  expect(text.endsWith('}\n')).toBe(true);
});
