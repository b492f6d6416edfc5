/** Rules for Helm chart versions. Pure functions, no constructs. */

/**
 * An exact SemVer 2 version, with the optional leading `v` some charts use (cert-manager's `v1.21.1`).
 * Anything else (a range, `*`, `1.x`, `latest`, empty) lets the rendered chart change under a fixed commit.
 */
const EXACT_VERSION = /^v?(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(-[0-9A-Za-z-]+(\.[0-9A-Za-z-]+)*)?(\+[0-9A-Za-z-]+(\.[0-9A-Za-z-]+)*)?$/;

/** Whether `version` pins exactly one chart release. */
export function isPinnedChartVersion(version: string): boolean {
  return EXACT_VERSION.test(version);
}
