import {
  appTierWaveProblem, FIRST_APP_TIER_WAVE, FIRST_SYNC_WAVE, LAST_APP_TIER_WAVE, LAST_SYNC_WAVE, SYNC_WAVE_ANNOTATION, SYNC_WAVES, syncWaveProblem,
} from '../../lib/shared/sync-waves';

test('the wave table spans 0 to 8 in bring-up order', () => {
  expect(Object.values(SYNC_WAVES)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8]);
  expect(FIRST_SYNC_WAVE).toBe(0);
  expect(LAST_SYNC_WAVE).toBe(8);
  expect(SYNC_WAVE_ANNOTATION).toBe('argocd.argoproj.io/sync-wave');
});

test('waves outside 0..8 or not integers are problems', () => {
  expect(syncWaveProblem(0)).toBeUndefined();
  expect(syncWaveProblem(8)).toBeUndefined();
  expect(syncWaveProblem(9)).toBe('must be an integer from 0 to 8, got 9');
  expect(syncWaveProblem(-1)).toBe('must be an integer from 0 to 8, got -1');
  expect(syncWaveProblem(1.5)).toBe('must be an integer from 0 to 8, got 1.5');
  expect(syncWaveProblem('3')).toBe('must be an integer from 0 to 8, got "3"');
});

test('the app tier\'s waves follow the platform\'s, 9 to 12', () => {
  expect(FIRST_APP_TIER_WAVE).toBe(LAST_SYNC_WAVE + 1);
  expect(appTierWaveProblem(9)).toBeUndefined();
  expect(appTierWaveProblem(12)).toBeUndefined();
  expect(appTierWaveProblem(8)).toBe('must be an integer from 9 to 12 (the app tier\'s waves, after the platform\'s), got 8');
  expect(appTierWaveProblem(13)).toBe('must be an integer from 9 to 12 (the app tier\'s waves, after the platform\'s), got 13');
  expect(appTierWaveProblem(9.5)).toMatch(/got 9\.5$/);
  expect(LAST_APP_TIER_WAVE).toBe(12);
});
