import * as YAML from 'yaml';
import ddbCluster from '../../examples/ddb-cluster.config';
import config from '../../homelab.config';
import { synthesizeHomelab } from '../../lib/homelab-app';
import { renderYaml } from '../../lib/synth/render-chart';
import { renderedDocuments } from '../../lib/synth/rendered-documents';
import { validateOutput } from '../../lib/validation';

describe('rendered documents: the validator reads what renderYaml wrote without parsing it', () => {
  test.each([
    ['the default homelab', config],
    ['examples/ddb-cluster.config.ts', ddbCluster],
  ])('%s: every remembered file parses back to exactly its remembered documents', (_name, homelab) => {
    // GIVEN a whole synthesized tree
    const { tree } = synthesizeHomelab(homelab);
    const yamlFiles = [...tree.keys()].filter((f) => f.endsWith('.yaml'));
    const remembered = yamlFiles.filter((f) => renderedDocuments(tree.get(f) as string) !== undefined);

    // THEN nearly every manifest skips the parse (kustomizations and other hand-built text may not)
    expect(remembered.length).toBeGreaterThanOrEqual(Math.floor(yamlFiles.length * 0.8));
    // AND each remembered file's YAML reads back as its remembered documents, as the validator would read it
    for (const file of remembered) {
      const text = tree.get(file) as string;
      const parsed = YAML.parseAllDocuments(text, { uniqueKeys: true }).map((d) => {
        expect({ file, errors: d.errors }).toEqual({ file, errors: [] });
        return d.toJS();
      });
      expect({ file, docs: parsed }).toEqual({ file, docs: renderedDocuments(text) });
    }
  });

  test('a later change to a rendered object does not change what is remembered', () => {
    const doc = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'later-edit' }, data: { a: '1' } };
    const text = renderYaml([doc]);
    doc.data.a = 'changed';
    expect(renderedDocuments(text)).toEqual([{ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'later-edit' }, data: { a: '1' } }]);
  });

  test('text the fast path cannot write (a -0) is not remembered, and is parsed', () => {
    const text = renderYaml([{ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'negative-zero' }, data: { n: -0 } }]);
    expect(renderedDocuments(text)).toBeUndefined();
  });

  test('the validator finds the same problems in remembered text as in the same text parsed', () => {
    // GIVEN a rendered ConfigMap with an integer beyond 2^53 and an unknown field
    const doc = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'big', size: 2 ** 60 }, data: { a: '1' } };
    const text = renderYaml([doc]);
    expect(renderedDocuments(text)).toBeDefined();
    // WHEN validated as rendered, and as a copy the memo does not know (a trailing comment line)
    const remembered = validateOutput(new Map([['big.yaml', text]]));
    const parsed = validateOutput(new Map([['big.yaml', `${text}# parsed\n`]]));
    // THEN both report the same problems
    expect(remembered.map((p) => p.message)).toEqual(parsed.map((p) => p.message));
    expect(remembered.map((p) => p.message).join('\n')).toMatch(/beyond 2\^53/);
    expect(remembered.map((p) => p.message).join('\n')).toMatch(/unknown field 'size'/);
  });
});
