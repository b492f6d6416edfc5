/** Go durations as Forgejo reads them (`mirror_interval`). Pure function, shared by the config schema and the mirror Job. */

const GO_DURATION = /^\d+[smh](\d+[smh])*$/;

/** Whether `text` is a Go duration of hours, minutes and seconds, such as `10m0s` or `8h`. */
export function isGoDuration(text: string): boolean {
  return GO_DURATION.test(text);
}
