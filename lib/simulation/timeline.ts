/** One thing that happened at a simulated time. */
export interface TimelineEvent {
  /** Simulated seconds since the runbook started. */
  readonly at: number;
  /** Who reports it: `runbook`, `argocd/<app>`, `cnpg`, `kubelet`, ... */
  readonly source: string;
  readonly message: string;
}

/** A simulated clock: time only moves when the simulation advances it; nothing sleeps. */
export class SimClock {
  /** @param seconds where the clock starts: 0, or where a previous run on the same World stopped. */
  constructor(private seconds = 0) {}

  public get now(): number {
    return this.seconds;
  }

  public advance(by: number): void {
    if (by <= 0) throw new Error(`SimClock: can only move forward, got ${by}s`);
    this.seconds += by;
  }
}

/** `h:mm:ss` of simulated seconds. */
export function formatClock(seconds: number): string {
  const h = Math.floor(seconds / 3600);
  const m = Math.floor((seconds % 3600) / 60);
  const s = seconds % 60;
  return `${h}:${String(m).padStart(2, '0')}:${String(s).padStart(2, '0')}`;
}

/** The timeline as text, one event a line: `+0:05:10  runbook           step 3 ...`. Deterministic. */
export function formatTimeline(events: readonly TimelineEvent[]): string {
  const width = Math.max(8, ...events.map((e) => e.source.length));
  return events.map((e) => `+${formatClock(e.at)}  ${e.source.padEnd(width)}  ${e.message}`).join('\n') + '\n';
}
