import { formatPath } from './object-diff';
import { describeObject, FILE_KIND } from './review-objects';
import { Review } from './review-changes';

/**
 * The warnings `npm run synth` and `npm run plan` print for a valid config whose output would hurt the cluster,
 * compared with the output committed before it (the review of `npm run diff`, read from the other side): a change
 * the API server refuses (an immutable field, a Secret's type), one that loses data (a volume shrinks, a Cluster or a
 * volume claim is removed, a reclaim policy becomes delete, an auto-pruning Application is removed or moved), a
 * Phase-0 cluster whose instance count changes, and a Phase-0 object removed, which the runbook never deletes.
 * One line each, sorted by file; none when nothing risky changed.
 */
export function changeWarnings(review: Review): string[] {
  const lines: string[] = [];
  for (const c of review.changes) {
    const what = `${c.id.kind === FILE_KIND ? `file ${c.file}` : `${describeObject(c.id)} (${c.file})`}`;
    for (const f of c.findings) {
      if (f.class === 'breaks-apply') lines.push(`${what}: the apply will fail: ${f.message}`);
      if (f.class === 'destroys-data') lines.push(`${what}: loses data: ${f.message}`);
    }
    if (c.step === undefined) continue;
    const instances = c.fields.find((f) => formatPath(f.path) === 'spec.instances');
    if (c.id.group === 'postgresql.cnpg.io' && c.id.kind === 'Cluster' && c.change === 'changed' && instances) {
      lines.push(`${what}: instances ${String(instances.old)} → ${String(instances.new)} on a Phase-0 cluster: only the runbook applies it ` +
        `(re-run it from ${c.step}); CNPG ${Number(instances.new) < Number(instances.old) ? 'deletes the removed instances and their volumes' : 'clones new instances from the primary'}`);
    }
    if (c.change === 'removed' && c.id.kind !== FILE_KIND) {
      lines.push(`${what}: removed from Phase 0 (${c.step}): the runbook never deletes what it applied, so it keeps running until ` +
        `you delete it (kubectl delete ${c.id.kind.toLowerCase()}${c.id.namespace ? ` -n ${c.id.namespace}` : ''} ${c.id.name})`);
    }
  }
  return [...new Set(lines)];
}
