import { parseAllDocuments, stringify } from 'yaml';
import { HomelabConfig } from '../../lib/config/homelab-config';
import { REFERENCE_HOMELAB } from '../../lib/config/defaults';

/** A deep copy of the reference homelab to edit. */
export function referenceCopy(): any {
  return structuredClone(REFERENCE_HOMELAB) as HomelabConfig;
}

/** `tree` with the documents of `file` passed through `edit` (an object in, an object out). */
export function editDocs(tree: ReadonlyMap<string, string>, file: string, edit: (doc: any) => any): Map<string, string> {
  const copy = new Map(tree);
  const docs = parseAllDocuments(copy.get(file)!).map((d) => edit(d.toJSON()));
  copy.set(file, docs.map((d) => stringify(d)).join('---\n'));
  return copy;
}

/** The committed output of an older program: Forgejo's Deployment selected its pods by name only. */
export function withOldForgejoSelector(tree: ReadonlyMap<string, string>): Map<string, string> {
  return editDocs(tree, 'bootstrap/07-forgejo.yaml', (doc) => {
    if (doc.kind !== 'Deployment' || doc.metadata.name !== 'forgejo') return doc;
    delete doc.spec.selector.matchLabels['app.kubernetes.io/instance'];
    return doc;
  });
}
