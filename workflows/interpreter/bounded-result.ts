/**
 * Keeps a run's result within what Temporal carries (2 MB per payload): the result, which is also the failure's
 * details, holds every node result, but outputs and variables too large to keep are replaced by a summary with
 * their size and the start of their JSON. The run itself saw the whole values; only what is reported is cut.
 * Pure and deterministic (workflow code).
 */
import type { NodeResult, OutputSummary, RunResult } from '../../lib/runtime/contract.js';

/** Largest output or variable kept whole in a result, as JSON bytes. */
export const KEPT_VALUE_BYTES = 16 * 1024;
/** What all kept outputs and variables of one result may add up to. */
export const KEPT_TOTAL_BYTES = 1024 * 1024;
const PREVIEW_CHARS = 200;

/** UTF-8 length of a string (no Buffer or TextEncoder needed in workflow code). */
export function utf8Length(text: string): number {
  let bytes = 0;
  for (let i = 0; i < text.length; i += 1) {
    const code = text.charCodeAt(i);
    if (code < 0x80) bytes += 1;
    else if (code < 0x800) bytes += 2;
    else if (code >= 0xd800 && code <= 0xdbff) {
      bytes += 4;
      i += 1;
    } else bytes += 3;
  }
  return bytes;
}

function jsonOf(value: unknown): string {
  try {
    return JSON.stringify(value) ?? 'null';
  } catch {
    return String(value);
  }
}

/** Keeps values while the budget lasts; a value over the per-value limit, or past the budget, is summarised. */
class Budget {
  private left = KEPT_TOTAL_BYTES;

  keep(value: unknown): unknown {
    if (value === undefined || value === null || typeof value === 'boolean' || typeof value === 'number') return value;
    const json = jsonOf(value);
    const bytes = utf8Length(json);
    if (bytes <= KEPT_VALUE_BYTES && bytes <= this.left) {
      this.left -= bytes;
      return value;
    }
    const summary: OutputSummary = { truncated: true, bytes, preview: json.slice(0, PREVIEW_CHARS) };
    return summary;
  }
}

/** `run` with outputs and variables small enough to report; small runs come back unchanged. */
export function boundedResult<T extends RunResult>(run: T): T {
  const budget = new Budget();
  const nodeResults = run.nodeResults.map((result): NodeResult =>
    result.output === undefined ? result : { ...result, output: budget.keep(result.output) },
  );
  const variables = Object.fromEntries(Object.entries(run.variables).map(([name, value]) => [name, budget.keep(value)]));
  return { ...run, nodeResults, variables };
}
