import { isPinnedChartVersion } from '../../../lib/constructs/argocd/chart-version';

test.each(['1.6.0', 'v1.21.1', '239.4.0', '2026.8.0', '1.0.0-rc.2', '1.2.3+build.5'])('%s is pinned', (v) => {
  expect(isPinnedChartVersion(v)).toBe(true);
});

test.each(['*', '^1.2.0', '~1', '>=1', 'latest', '', '1.x', '1.2', '1.2.x', '1.2.3 - 1.3.0', '01.2.3'])('%p is not pinned', (v) => {
  expect(isPinnedChartVersion(v)).toBe(false);
});
