import { CoverageReport, findingCount } from './audit-coverage';

/** The groups of the human-readable report, in print order, each with its heading. */
const GROUPS: readonly { key: keyof Omit<CoverageReport, 'repo' | 'applications' | 'files'>; title: string; advice: string }[] = [
  {
    key: 'orphans',
    title: 'Orphans',
    advice: 'manifests no Application reconciles. Wire each into an Application, list its directory in argocd.unmanaged, or delete it.',
  },
  { key: 'duplicates', title: 'Duplicates', advice: 'directories more than one Application renders.' },
  { key: 'missing', title: 'Missing', advice: 'paths Applications read that are not in the tree.' },
  { key: 'deadAggregators', title: 'Dead aggregators', advice: 'kustomizations no Application reaches. Point an Application at one, or delete it.' },
  { key: 'secondAppOfApps', title: 'Second app-of-apps', advice: 'Application and ApplicationSet manifests outside the generated argocd/ folder.' },
  { key: 'unmatchedSecrets', title: 'Unmatched secrets', advice: 'encrypted files the sops-secrets Application never applies.' },
];

/** The report as grouped text: a header line, one block per non-empty group, and a summary line. */
export function formatReport(report: CoverageReport): string {
  const lines = [`Coverage audit of ${report.repo}: ${report.applications} Applications, ${report.files} files.`];
  for (const group of GROUPS) {
    const findings = report[group.key] as readonly { message: string }[];
    if (findings.length === 0) continue;
    lines.push('', `${group.title} (${findings.length}): ${group.advice}`, ...findings.map((f) => `  - ${f.message}`));
  }
  const n = findingCount(report);
  lines.push('', n === 0
    ? 'No findings: every deployable directory is reconciled by exactly one Application.'
    : `${n} finding${n === 1 ? '' : 's'}.`);
  return `${lines.join('\n')}\n`;
}

/** The report as JSON for machines: stable key order, every list sorted, `findings` the total. */
export function reportJson(report: CoverageReport): string {
  const r = report;
  const json = {
    repo: r.repo, applications: r.applications, files: r.files, findings: findingCount(r),
    orphans: r.orphans, duplicates: r.duplicates, missing: r.missing, deadAggregators: r.deadAggregators,
    secondAppOfApps: r.secondAppOfApps, unmatchedSecrets: r.unmatchedSecrets,
  };
  return `${JSON.stringify(json, undefined, 2)}\n`;
}
