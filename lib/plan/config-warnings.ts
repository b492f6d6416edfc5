import { ResolvedHomelabConfig } from '../config/homelab-config';
import { UNPINNED } from '../shared/manifest-integrity';

/**
 * Valid settings of the config that lose data or protection by design, each with its config path: listed in the plan
 * and in `dist/README.md`, so a reviewer sees them in every pull request, not only when they change (the change
 * warnings of `npm run synth` and `npm run plan` cover those). Sorted by path.
 */
export function configWarnings(config: ResolvedHomelabConfig): string[] {
  const warnings: string[] = [];
  for (const name of Object.keys(config.databases).sort()) {
    if (config.databases[name].reclaimPolicy === 'delete') {
      warnings.push(`databases.${name}.reclaimPolicy is 'delete': removing the database from the config drops it and its data in PostgreSQL.`);
    }
  }
  if (!config.network.isolatePhase0) {
    warnings.push('network.isolatePhase0 is false: any pod in the cluster may reach Forgejo, its Redis, its database and Argo CD.');
  }
  for (const name of Object.keys(config.postgresClusters).sort()) {
    const c = config.postgresClusters[name];
    if (c.deliveredBy === 'bootstrap' && c.backup === undefined) {
      warnings.push(`postgresClusters.${name} is a Phase-0 cluster without backup: a rebuild loses its data.`);
    }
    if (c.backup?.acceptInClusterOnly) {
      warnings.push(`postgresClusters.${name}.backup.acceptInClusterOnly is true: its backups live in the cluster they protect.`);
    }
  }
  if (config.forgejo.backup === undefined) warnings.push('forgejo.backup is not set: a rebuild loses every git repository Forgejo holds.');
  else if (config.forgejo.backup.acceptInClusterOnly) warnings.push('forgejo.backup.acceptInClusterOnly is true: the dumps live in the cluster they protect.');
  for (const url of Object.keys(config.manifestSha256).sort()) {
    if (config.manifestSha256[url] === UNPINNED) {
      // The path's first word stays short: the plan wraps a styled first word whole, and cuts only plain long words (URLs).
      warnings.push(`manifestSha256 leaves ${url} '${UNPINNED}': the runbook applies this release manifest without checking its bytes ` +
        '(it prints its sha256 to pin).');
    }
  }
  return warnings.sort();
}
