import { argoGlobMatch } from '../../lib/coverage/argo-glob';

describe('argoGlobMatch (gobwas/glob without separators, as Argo CD compiles directory globs)', () => {
  test('* matches any run of characters, / included', () => {
    expect(argoGlobMatch('*-values.yaml', 'vault-values.yaml')).toBe(true);
    expect(argoGlobMatch('*-values.yaml', 'sub/vault-values.yaml')).toBe(true);
    expect(argoGlobMatch('*-values.yaml', 'vault.yaml')).toBe(false);
    expect(argoGlobMatch('**/*.yaml', 'a/b.yaml')).toBe(true);
  });

  test('{a,b} alternatives, as the rendered exclude of a directory source uses', () => {
    const exclude = '{*-values.yaml,*.enc.yaml}';
    expect(argoGlobMatch(exclude, 'authentik-values.yaml')).toBe(true);
    expect(argoGlobMatch(exclude, 'token.enc.yaml')).toBe(true);
    expect(argoGlobMatch(exclude, 'job.yaml')).toBe(false);
    expect(argoGlobMatch('{a,{b,c}}.yaml', 'c.yaml')).toBe(true);
  });

  test('?, character classes, negated classes and escapes', () => {
    expect(argoGlobMatch('job-?.yaml', 'job-1.yaml')).toBe(true);
    expect(argoGlobMatch('job-?.yaml', 'job-12.yaml')).toBe(false);
    expect(argoGlobMatch('job-[0-9].yaml', 'job-7.yaml')).toBe(true);
    expect(argoGlobMatch('job-[!0-9].yaml', 'job-7.yaml')).toBe(false);
    expect(argoGlobMatch('\\*.yaml', '*.yaml')).toBe(true);
    expect(argoGlobMatch('\\*.yaml', 'a.yaml')).toBe(false);
    expect(argoGlobMatch('a.yaml', 'axyaml')).toBe(false);
  });
});
