/** The manifest of `kind` named `name` in `manifests` (from `Testing.synth`); throws listing what is there. */
export function find(manifests: any[], kind: string, name: string): any {
  const found = manifests.find((m) => m.kind === kind && m.metadata?.name === name);
  if (!found) throw new Error(`no ${kind} ${name} in ${manifests.map((m) => `${m.kind}/${m.metadata?.name}`).join(', ')}`);
  return found;
}
