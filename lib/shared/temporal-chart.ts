/** Temporal settings the config schema needs: pure data (the values themselves are lib/constructs/temporal). */

/** The chart version the generated values are written for (appVersion 1.31.2). */
export const TEMPORAL_VALUES_CHART_VERSION = '1.6.0';

/** SQL plugins of the chart that talk to PostgreSQL; `mysql8` is the only other one. */
export const TEMPORAL_SQL_PLUGINS = ['postgres12', 'postgres12_pgx'] as const;

/** A SQL plugin of `TEMPORAL_SQL_PLUGINS`. */
export type TemporalSqlPlugin = (typeof TEMPORAL_SQL_PLUGINS)[number];
