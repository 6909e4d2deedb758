/**
 * How the outbox dispatcher tells its failures apart: one event's own (retried with backoff, then parked) from
 * Temporal being unreachable (the whole pass is retried, no attempt counted).
 */
import { isGrpcServiceError, ServiceError } from '@temporalio/client';

/** gRPC codes that mean Temporal could not be reached or did not answer in time (UNAVAILABLE, DEADLINE_EXCEEDED). */
export const UNREACHABLE = new Set([14, 4]);

/** Whether a start failed because Temporal is unreachable, which no event causes and retrying the pass cures. */
export function temporalUnreachable(error: unknown): boolean {
  const cause = error instanceof ServiceError ? (error.cause ?? error) : error;
  return isGrpcServiceError(cause) && UNREACHABLE.has(cause.code);
}

/** An error's message with the messages of its causes (the Temporal client wraps the server's reason). */
export function messageOf(error: unknown): string {
  const parts: string[] = [];
  for (let e: unknown = error; e && parts.length < 4; e = (e as { cause?: unknown }).cause) parts.push(e instanceof Error ? e.message : String(e));
  return parts.join(': ');
}

export type Outcome<T> = T | { error: unknown };

export function attempt<T extends object>(work: () => T): Outcome<T> {
  try {
    return work();
  } catch (error) {
    return { error };
  }
}

export async function attemptAsync(work: () => Promise<unknown>): Promise<Outcome<{ ok: true }>> {
  try {
    await work();
    return { ok: true };
  } catch (error) {
    return { error };
  }
}
