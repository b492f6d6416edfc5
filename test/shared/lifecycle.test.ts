import { LIFECYCLE, lifecycleOf, LifecycleEntry } from '../../lib/shared/lifecycle';

describe('the lifecycle table', () => {
  test('a version-bound entry applies to that line only: kubectl 1.31 is unknown, not end-of-life and not supported', () => {
    const kubectl = { kind: 'image', repository: 'registry.k8s.io/kubectl' } as const;
    expect(lifecycleOf(kubectl, 'v1.30.14')?.status).toBe('end-of-life');
    expect(lifecycleOf(kubectl, 'v1.31.0')).toBeUndefined();
    expect(lifecycleOf(kubectl, 'v1.3.0')).toBeUndefined();
  });

  test('charts match by repository and name; a trailing slash of the repository does not matter', () => {
    expect(lifecycleOf({ kind: 'chart', repoURL: 'https://operator.min.io', chart: 'tenant' }, '7.1.1')?.status).toBe('archived');
    expect(lifecycleOf({ kind: 'chart', repoURL: 'https://example.org/charts', chart: 'tenant' }, '7.1.1')).toBeUndefined();
  });

  test('the first matching entry wins, so a version-bound entry must come before a catch-all for the same subject', () => {
    const subject = { kind: 'project', project: 'o/r' } as const;
    const table: LifecycleEntry[] = [
      { component: 'R 1', subjects: [subject], versionPrefix: '1.', status: 'supported', since: '2026', source: 's' },
      { component: 'R', subjects: [subject], status: 'deprecated', since: '2026', source: 's' },
    ];
    expect(lifecycleOf(subject, 'v1.2.0', table)?.component).toBe('R 1');
    expect(lifecycleOf(subject, '2.0.0', table)?.component).toBe('R');
    for (const [i, e] of LIFECYCLE.entries()) {
      if (e.versionPrefix !== undefined) continue;
      const same = (x: LifecycleEntry) => x.subjects.some((s) => e.subjects.some((t) => JSON.stringify(s) === JSON.stringify(t)));
      const later = LIFECYCLE.slice(i + 1).filter((x) => x.versionPrefix !== undefined && same(x));
      expect(later.map((x) => x.component)).toEqual([]);
    }
  });

  test('every entry has a source, a date, and a replacement when it is no longer maintained', () => {
    for (const e of LIFECYCLE) {
      expect(e.source).not.toBe('');
      expect(e.since).toMatch(/^\d{4}(-\d{2}){1,2}$/);
      if (e.status !== 'supported') expect(e.replacement).toBeDefined();
    }
  });
});
