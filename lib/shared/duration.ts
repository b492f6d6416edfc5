/** Go durations as Forgejo reads them (`mirror_interval`). Pure function, shared by the config schema and the mirror Job. */

const GO_DURATION = /^\d+[smh](\d+[smh])*$/;

/** Whether `text` is a Go duration of hours, minutes and seconds, such as `10m0s` or `8h`. */
export function isGoDuration(text: string): boolean {
  return GO_DURATION.test(text);
}

/** Seconds of a Go duration of hours, minutes and seconds (`isGoDuration`), e.g. 600 for `10m0s`. */
export function goDurationSeconds(text: string): number {
  if (!isGoDuration(text)) throw new Error(`'${text}' is not a Go duration of hours, minutes and seconds, such as '10m0s'`);
  const unit: Record<string, number> = { h: 3600, m: 60, s: 1 };
  return [...text.matchAll(/(\d+)([smh])/g)].reduce((sum, m) => sum + Number(m[1]) * unit[m[2]], 0);
}
