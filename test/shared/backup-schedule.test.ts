import { cronJobScheduleProblem, scheduleMaxIntervalSeconds } from '../../lib/shared/backup';

const HOUR = 3600;
const DAY = 24 * HOUR;

describe('scheduleMaxIntervalSeconds: the longest gap between two runs, an upper bound', () => {
  test.each([
    ['0 0 3 * * *', DAY, 'daily at 03:00'],
    ['0 30 3 * * *', DAY, 'daily at 03:30'],
    ['0 0 3,15 * * *', DAY, 'a list of hours counts as daily (an upper bound)'],
    ['0 0 */6 * * *', 6 * HOUR, 'every 6 hours'],
    ['0 0 */5 * * *', DAY, 'a step that does not divide 24 counts as daily'],
    ['0 0 * * * *', HOUR, 'hourly'],
    ['0 */15 * * * *', 15 * 60, 'every 15 minutes'],
    ['0 0 3 * * 0', 7 * DAY, 'weekly on Sunday'],
    ['0 0 3 * * MON-FRI', 7 * DAY, 'week days: the weekend gap is bounded by a week'],
    ['0 0 3 1 * *', 31 * DAY, 'monthly'],
    ['0 0 3 1 1 *', 366 * DAY, 'yearly'],
    ['@daily', DAY, 'descriptor'],
    ['@weekly', 7 * DAY, 'descriptor'],
    ['@every 6h', 6 * HOUR, 'a Go duration'],
    ['@every 1h30m', 90 * 60, 'a Go duration of two units'],
  ])('CNPG %s -> %i s (%s)', (schedule, seconds) => {
    expect(scheduleMaxIntervalSeconds(schedule, true)).toBe(seconds);
  });

  test.each([
    ['0 5 * * 0', 7 * DAY],
    ['0 5 * * *', DAY],
    ['*/30 * * * *', 30 * 60],
    ['0 5 1 * *', 31 * DAY],
  ])('CronJob %s -> %i s', (schedule, seconds) => {
    expect(scheduleMaxIntervalSeconds(schedule, false)).toBe(seconds);
  });
});

describe('cronJobScheduleProblem', () => {
  test('accepts five fields and descriptors', () => {
    expect(cronJobScheduleProblem('0 5 * * 0')).toBeUndefined();
    expect(cronJobScheduleProblem('0 5 * * SUN')).toBeUndefined();
    expect(cronJobScheduleProblem('@weekly')).toBeUndefined();
  });

  test('fails on a six-field CNPG schedule and says which five fields to keep', () => {
    expect(cronJobScheduleProblem('0 0 5 * * 0')).toBe("'0 0 5 * * 0' has 6 fields, like CNPG's ScheduledBackup (seconds first); a " +
      "Kubernetes CronJob schedule has 5, minutes first: write '0 5 * * 0'.");
  });

  test('fails on a field out of range, naming it', () => {
    expect(cronJobScheduleProblem('0 25 * * *')).toBe("'0 25 * * *': field 2 (hours) '25' is not valid; use '*', a number from 0 to 23, " +
      "a range 'a-b', a list 'a,b' or a step '*/n'.");
  });
});
