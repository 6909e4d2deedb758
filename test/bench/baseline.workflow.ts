/**
 * The plain-Temporal baselines of the benchmarks: N empty activities in sequence, N local GETs, a webhook-shaped run (GET a
 * service, INSERT a row into PostgreSQL, POST the service) as local activities, and a conversation-shaped
 * long-lived workflow whose turns are updates (INSERT the user's message, INSERT the reply), nothing else.
 */
import { condition, defineUpdate, proxyActivities, proxyLocalActivities, setHandler } from '@temporalio/workflow';
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

/** N local activities that each GET the service: the chain of API nodes done by hand. */
export async function plainLocalGetChain(steps: number, serviceUrl: string): Promise<number> {
  for (let i = 0; i < steps; i += 1) await local.httpGet(serviceUrl);
  return steps;
}

/** The automation benchmark's workflow done by hand: GET the service, INSERT the payload and answer, POST the payload. */
export async function webhookShaped(input: { serviceUrl: string; payload: unknown }): Promise<void> {
  const answer = await local.httpGet(input.serviceUrl);
  await local.insertRow(input.payload, answer);
  await local.httpPost(input.serviceUrl, input.payload);
}

/** A turn: the user's text in, the reply out. */
export const turnUpdate = defineUpdate<string, [string]>('turn');

/**
 * The conversation benchmark's turn done by hand: a workflow that lives as long as its conversation and answers
 * each turn, an update, by recording the user's message and the reply (one INSERT each, as local activities).
 */
export async function conversationShaped(input: { reply: string }): Promise<void> {
  let turns = 0;
  setHandler(turnUpdate, async (text) => {
    turns += 1;
    await local.insertMessage('user', text, turns);
    await local.insertMessage('agent', input.reply, turns);
    return input.reply;
  });
  await condition(() => false);
}
