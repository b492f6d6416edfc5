import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { DIR_MODE, FILE_MODE, readTree, SCRIPT_MODE, writeTree } from '../../lib/output/output-tree';

/** Every path under `dir` (itself as '.') with its permission bits, in sorted order. */
function modes(dir: string): Record<string, string> {
  const out: Record<string, string> = { '.': (fs.statSync(dir).mode & 0o777).toString(8) };
  const walk = (abs: string, rel: string): void => {
    for (const name of fs.readdirSync(abs).sort()) {
      const childAbs = path.join(abs, name);
      const childRel = rel ? `${rel}/${name}` : name;
      out[childRel] = (fs.statSync(childAbs).mode & 0o777).toString(8);
      if (fs.statSync(childAbs).isDirectory()) walk(childAbs, childRel);
    }
  };
  walk(dir, '');
  return out;
}

describe('writeTree', () => {
  let tmp: string;
  beforeEach(() => { tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'output-tree-')); });
  afterEach(() => fs.rmSync(tmp, { recursive: true, force: true }));

  test('writes folders 0755, files 0644 and scripts 0755, whatever the umask', () => {
    // GIVEN a restrictive umask and files in nested folders (the middle one made by mkdir -p only)
    const tree = new Map([
      ['README.md', '# r\n'],
      ['bootstrap/bootstrap.sh', '#!/usr/bin/env bash\n'],
      ['bootstrap/02-step/kustomization.yaml', 'a: 1\n'],
      ['argocd/apps/deep/x.yaml', 'b: 2\n'],
    ]);
    const previous = process.umask(0o077);
    try {
      // WHEN
      writeTree(tree, path.join(tmp, 'dist'));
    } finally {
      process.umask(previous);
    }

    // THEN
    expect([DIR_MODE, FILE_MODE, SCRIPT_MODE]).toEqual([0o755, 0o644, 0o755]);
    expect(modes(path.join(tmp, 'dist'))).toEqual({
      '.': '755',
      'README.md': '644',
      'argocd': '755',
      'argocd/apps': '755',
      'argocd/apps/deep': '755',
      'argocd/apps/deep/x.yaml': '644',
      'bootstrap': '755',
      'bootstrap/02-step': '755',
      'bootstrap/02-step/kustomization.yaml': '644',
      'bootstrap/bootstrap.sh': '755',
    });
    expect(readTree(path.join(tmp, 'dist'))).toEqual(tree);
  });

  test('replaces the previous output and leaves no staging folder behind', () => {
    writeTree(new Map([['old.yaml', 'x\n']]), path.join(tmp, 'dist'));
    writeTree(new Map([['new.yaml', 'y\n']]), path.join(tmp, 'dist'));
    expect(readTree(path.join(tmp, 'dist'))).toEqual(new Map([['new.yaml', 'y\n']]));
    expect(fs.readdirSync(tmp)).toEqual(['dist']);
  });
});
