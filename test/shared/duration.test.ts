import { goDurationSeconds, isGoDuration } from '../../lib/shared/duration';

describe('Go durations', () => {
  test('goDurationSeconds adds hours, minutes and seconds', () => {
    expect(goDurationSeconds('10m0s')).toBe(600);
    expect(goDurationSeconds('1h30m')).toBe(5400);
    expect(goDurationSeconds('45s')).toBe(45);
    expect(isGoDuration('10m0s')).toBe(true);
  });

  test('throws on anything else', () => {
    expect(() => goDurationSeconds('10 minutes')).toThrow("'10 minutes' is not a Go duration of hours, minutes and seconds, such as '10m0s'");
  });
});
