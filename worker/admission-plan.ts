/**
 * Which of the claimed events a dispatcher pass admits (db/automations/admission.ts): pure, so the rules are read
 * and tested in one place. Events come round-robin by account (PICK_PENDING_EVENTS) and are taken in that order:
 *  - an event whose runs fit in the free slots is admitted; the first that does not fit closes the pass for every
 *    event with runs (so a large event is not overtaken forever by small ones); events that start no run pass;
 *  - an event one of whose automations is at its concurrency limit waits, and so do the later events of that
 *    automation in this pass, so a limited automation's runs start in the order of their events;
 *  - an event needing more slots than could ever be free (more runs than the bound, or than its automation's limit) is
 *    admitted when nothing it competes with is in flight, instead of waiting forever;
 *  - a background event (a retry job's retry; they come after every other event) is admitted only while its runs fit
 *    in the background runs' share of the bound too, so the rest of the bound stays free for fresh runs.
 */
import type { AutomationLimit } from '../db/automations/admission.js';

export interface AdmissionCandidate {
  eventId: string;
  /** The automation of each run the event starts. */
  automationIds: number[];
  /** A background event (`OutboxEvent.background`). */
  background?: boolean;
}

export interface AdmissionState {
  /** The bound minus the runs in flight (may be negative after the bound was lowered). */
  free: number;
  inFlight: number;
  /** The automations that set a concurrency limit, with their runs in flight. */
  limits: ReadonlyMap<number, AutomationLimit>;
  /** The background runs' share of the bound minus the background runs in flight (default: no share of its own). */
  backgroundFree?: number;
}

/** The ids of the events to dispatch now; the others stay pending, in place. */
export function planAdmission(candidates: AdmissionCandidate[], state: AdmissionState): Set<string> {
  let free = state.free;
  let backgroundFree = state.backgroundFree ?? Infinity;
  let admittedRuns = 0;
  let full = false;
  const inFlightOf = new Map([...state.limits].map(([id, l]) => [id, l.inFlight]));
  const waiting = new Set<number>();
  const admitted = new Set<string>();
  for (const { eventId, automationIds, background } of candidates) {
    if (!automationIds.length) {
      admitted.add(eventId);
      continue;
    }
    const perAutomation = new Map<number, number>();
    for (const id of automationIds) perAutomation.set(id, (perAutomation.get(id) ?? 0) + 1);
    const atLimit = [...perAutomation].some(([id, runs]) => {
      const limit = state.limits.get(id)?.limit;
      const inFlight = inFlightOf.get(id) ?? 0;
      return waiting.has(id) || (limit !== undefined && inFlight > 0 && inFlight + runs > limit);
    });
    const fits = automationIds.length <= free || (state.inFlight + admittedRuns === 0 && !full);
    if (background && !atLimit && !full && fits && automationIds.length > backgroundFree) continue;
    if (atLimit || full || !fits) {
      for (const id of perAutomation.keys()) waiting.add(id);
      if (!atLimit) full = true;
      continue;
    }
    admitted.add(eventId);
    free -= automationIds.length;
    if (background) backgroundFree -= automationIds.length;
    admittedRuns += automationIds.length;
    for (const [id, runs] of perAutomation) if (state.limits.has(id)) inFlightOf.set(id, (inFlightOf.get(id) ?? 0) + runs);
  }
  return admitted;
}
