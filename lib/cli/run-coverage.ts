import * as fs from 'fs';
import * as path from 'path';
import type { GitConfig, HomelabConfig } from '../config/homelab-config';
import { synthesizeHomelab } from '../synth/synthesize-homelab';
import { auditCoverage, CoverageReport, findingCount } from '../coverage/audit-coverage';
import { coverageModel } from '../coverage/coverage-model';
import { formatReport, reportJson } from '../coverage/format-report';
import { scanRepoTree } from '../coverage/repo-tree';

/** What the command prints and its exit code: 0 clean, 1 findings, 2 usage error or a config that does not synthesize. */
export interface CoverageCommandResult {
  readonly exitCode: 0 | 1 | 2;
  readonly stdout: string;
  readonly stderr: string;
}

/**
 * Synthesizes `config` and audits the homelab checkout at `repoRoot` against its Applications. Throws when
 * the config does not synthesize.
 */
export function auditHomelabCoverage(config: HomelabConfig, repoRoot: string): CoverageReport {
  // The audit reports missing paths itself; the synth-time check of git.repoRoot would throw on the first one.
  // Anything but an object with a git section goes to the schema as it is, which says what is wrong.
  const input = isObject(config) && isObject(config.git) ? { ...config, git: withoutRepoRoot(config.git) } : config;
  const { argocd, config: resolved } = synthesizeHomelab(input);
  return auditCoverage(coverageModel(argocd, resolved.argocd.unmanaged), scanRepoTree(repoRoot));
}

/** The `coverage` command: audits the checkout at `options.repo` and renders the result (`json`: the machine format). */
export function coverageCommand(config: HomelabConfig, options: { readonly repo: string; readonly json: boolean }): CoverageCommandResult {
  const usageError = (message: string): CoverageCommandResult => ({ exitCode: 2, stdout: '', stderr: `coverage: ${message}\n` });
  const { repo, json } = options;
  const root = path.resolve(repo);
  if (!fs.existsSync(root)) return usageError(`repo path '${repo}' does not exist.`);
  if (!fs.statSync(root).isDirectory()) return usageError(`repo path '${repo}' is not a directory.`);

  let report: CoverageReport;
  try {
    report = auditHomelabCoverage(config, root);
  } catch (e) {
    const message = e instanceof Error ? e.message : String(e);
    return { exitCode: 2, stdout: '', stderr: `coverage: the config does not synthesize, so there is nothing to compare.\n${message}\n` };
  }
  return { exitCode: findingCount(report) === 0 ? 0 : 1, stdout: json ? reportJson(report) : formatReport(report), stderr: '' };
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** `git` without `repoRoot` (a local path that turns missing Application paths into synth errors). */
function withoutRepoRoot(git: GitConfig): GitConfig {
  const copy: Record<string, unknown> = { ...git };
  delete copy.repoRoot;
  return copy as unknown as GitConfig;
}
