/**
 * An opt-in split timer of exports, for the export benchmark: where one export's wall time goes. Off unless a
 * listener is set (test/bench/api-process.ts sets one); then each phase's time is summed per batch or per row with
 * performance.now(), which costs tens of nanoseconds a call. When off, the export path only tests one variable.
 *
 * Phases (milliseconds of the API process's event loop, apart from `fetch`):
 * - `cursorWait`: the writer waiting for the next batch of rows (what reading ahead did not hide);
 * - `fetch`: FETCH round trips, from the statement sent to the rows parsed by node-postgres (PostgreSQL's work, the
 *   transfer and the parsing; overlaps the other phases when batches are read ahead);
 * - `views`: the fetched rows turned into the API's read form (XLSX, and CSV fields Node writes);
 * - `cells`: our values turned into cells (CSV: lines joined; XLSX: typed cells);
 * - `writer`: the CSV writer / exceljs's streaming workbook writer taking the rows;
 * - `drain`: waiting on backpressure (the client, or exceljs's deflate backlog).
 */
import { readFileSync } from 'node:fs';

export type ExportPhase = 'cursorWait' | 'fetch' | 'views' | 'cells' | 'writer' | 'drain';

export interface ExportTiming {
  format: string;
  rows: number;
  batches: number;
  wallMs: number;
  ms: Record<ExportPhase, number>;
  /** CPU time of the API process over the export (all its threads: zlib's deflate too), ms. */
  cpuUserMs: number;
  cpuSystemMs: number;
  /** CPU time of the PostgreSQL backend that ran the cursor (from /proc, when it is on this host), ms. */
  backendCpuMs?: number;
}

let listener: ((timing: ExportTiming) => void) | undefined;

/** Sets (or clears) the listener that gets each export's split when it ends. */
export function onExportTiming(fn: ((timing: ExportTiming) => void) | undefined): void {
  listener = fn;
}

/** CPU ticks (user + system) of a local process, or undefined. */
function processTicks(pid: number): number | undefined {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return Number(fields[11]) + Number(fields[12]);
  } catch {
    return undefined;
  }
}

/** Linux's USER_HZ: /proc reports CPU time in hundredths of a second. */
const TICK_MS = 10;

export class PhaseTimer {
  readonly ms: Record<ExportPhase, number> = { cursorWait: 0, fetch: 0, views: 0, cells: 0, writer: 0, drain: 0 };
  rows = 0;
  batches = 0;
  private readonly started = performance.now();
  private readonly cpu = process.cpuUsage();
  private backendPid?: number;
  private backendTicks?: number;
  private last = performance.now();

  constructor(private readonly format: string) {}

  /** Starts a lap (the time since the last mark is nobody's). */
  mark(): void {
    this.last = performance.now();
  }

  /** Ends a lap: the time since the last mark goes to `phase`. */
  lap(phase: ExportPhase): void {
    const now = performance.now();
    this.ms[phase] += now - this.last;
    this.last = now;
  }

  add(phase: ExportPhase, ms: number): void {
    this.ms[phase] += ms;
  }

  backend(pid: number): void {
    this.backendPid = pid;
    this.backendTicks = processTicks(pid);
  }

  end(): void {
    const cpu = process.cpuUsage(this.cpu);
    const ticks = this.backendPid === undefined ? undefined : processTicks(this.backendPid);
    listener?.({
      format: this.format,
      rows: this.rows,
      batches: this.batches,
      wallMs: performance.now() - this.started,
      ms: this.ms,
      cpuUserMs: cpu.user / 1000,
      cpuSystemMs: cpu.system / 1000,
      backendCpuMs: ticks === undefined || this.backendTicks === undefined ? undefined : (ticks - this.backendTicks) * TICK_MS,
    });
  }
}

/** A timer for one export when a listener is set, else undefined (and the export times nothing). */
export function phaseTimer(format: string): PhaseTimer | undefined {
  return listener ? new PhaseTimer(format) : undefined;
}
