/**
 * The plain-Temporal baselines of the benchmarks: N empty activities in sequence, and a webhook-shaped run (GET a
 * service, INSERT a row into PostgreSQL, POST the service) as local activities, nothing else.
 */
import { proxyActivities, proxyLocalActivities } from '@temporalio/workflow';
import type { BaselineActivities } from './baseline-activities.js';

const retry = { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '30 seconds', maximumAttempts: 4 };
const { noop } = proxyActivities<BaselineActivities>({ startToCloseTimeout: '2 minutes', heartbeatTimeout: '10 seconds', retry });
const local = proxyLocalActivities<BaselineActivities>({ startToCloseTimeout: '30 seconds', retry });

/** N empty (regular) activities. */
export async function plainChain(steps: number): Promise<number> {
  for (let i = 0; i < steps; i += 1) await noop();
  return steps;
}

/** N empty local activities: the Temporal primitive agentry runs no-I/O nodes on. */
export async function plainLocalChain(steps: number): Promise<number> {
  for (let i = 0; i < steps; i += 1) await local.noop();
  return steps;
}

/** The automation benchmark's workflow done by hand: GET the service, INSERT the payload and answer, POST the payload. */
export async function webhookShaped(input: { serviceUrl: string; payload: unknown }): Promise<void> {
  const answer = await local.httpGet(input.serviceUrl);
  await local.insertRow(input.payload, answer);
  await local.httpPost(input.serviceUrl, input.payload);
}
