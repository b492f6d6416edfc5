import { dnsLabelProblem, kubernetesNameForPg, pgIdentifierProblem } from '../../lib/shared/names';

describe('names', () => {
  test('derives the Kubernetes name of a PostgreSQL name', () => {
    expect(kubernetesNameForPg('temporal_visibility')).toBe('temporal-visibility');
    expect(kubernetesNameForPg('forgejo')).toBe('forgejo');
    expect(kubernetesNameForPg('_staging_')).toBe('staging');
  });

  test('accepts and rejects DNS labels', () => {
    expect(dnsLabelProblem('forgejo-db')).toBeUndefined();
    expect(dnsLabelProblem('Forgejo')).toMatch(/lower case/);
    expect(dnsLabelProblem('-a')).toMatch(/start and end/);
    expect(dnsLabelProblem('a'.repeat(64))).toBe('must be at most 63 characters, got 64');
    expect(dnsLabelProblem('')).toBe('must not be empty');
  });

  test('accepts and rejects PostgreSQL identifiers', () => {
    expect(pgIdentifierProblem('temporal_visibility')).toBeUndefined();
    expect(pgIdentifierProblem('temporal-visibility')).toMatch(/lower case letters, digits and '_'/);
    expect(pgIdentifierProblem('1db')).toMatch(/start with a letter/);
    expect(pgIdentifierProblem('a'.repeat(64))).toBe('must be at most 63 characters, got 64');
  });
});
