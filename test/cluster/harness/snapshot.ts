// What a runbook run wrote: uid and resourceVersion of every object the API server lists, compared before and
// after. An object whose resourceVersion moved was written, even if its content looks the same.
import { ControlPlane } from './control-plane';

/** Kinds whose objects the runbook re-creates on purpose (a Job's template is immutable: delete_job). */
const RECREATED = new Set(['Job']);
/** Objects the API server itself rewrites on its own schedule. */
const VOLATILE = new Set(['Event', 'Lease', 'Endpoints', 'EndpointSlice']);

/** uid and resourceVersion of every object the API server lists, but Jobs and volatile kinds. */
export async function snapshot(plane: ControlPlane): Promise<Map<string, string>> {
  const resources = (await plane.kubectl(['api-resources', '--verbs=list', '-o', 'name'])).stdout.trim().split('\n');
  const items = JSON.parse((await plane.kubectl(['get', resources.join(','), '-A', '-o', 'json'])).stdout).items as any[];
  return new Map(items
    .filter((o) => !RECREATED.has(o.kind) && !VOLATILE.has(o.kind))
    .map((o) => [`${o.kind} ${o.metadata.namespace ?? ''}/${o.metadata.name}`, `${o.metadata.uid} ${o.metadata.resourceVersion}`]));
}

export function changes(before: Map<string, string>, after: Map<string, string>): string[] {
  const keys = [...new Set([...before.keys(), ...after.keys()])].sort();
  return keys.filter((k) => before.get(k) !== after.get(k)).map((k) => `${k}: ${before.get(k) ?? 'absent'} → ${after.get(k) ?? 'absent'}`);
}

