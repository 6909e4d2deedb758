/**
 * `POST /workflows/{id}/logs/{logId}/retry`: one failed run retried (integrations/temporal/run-retries.ts prepares the
 * new run), queued as a MANUAL_RUN outbox event with its `run_retries` link, so it waits for admission like every
 * run. An `Idempotency-Key` makes a repeated click one retry: the same key answers the first answer again.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Client } from '@temporalio/client';
import type { Automation } from '../../db/automations/automation.entity.js';
import { oncePerKey, type IdempotentAnswer } from '../../db/automations/idempotency-keys.js';
import { OUTBOX_CHANNEL } from '../../db/automations/outbox-notifier.js';
import { queueRetry } from '../../db/automations/run-retries.js';
import { prepareRetry, type RetryChoice } from '../../integrations/temporal/run-retries.js';
import { bodyDigest } from '../../lib/idempotency.js';
import { nodeFactsOf } from '../../nodes/registry.js';

/** The answer: the new run's log id, the log it retries, how, and the outbox event that starts it. */
export interface RetryQueued {
  id: string;
  retryOf: string;
  from: RetryChoice['from'];
  graph: RetryChoice['graph'];
  eventId: string;
}

const ACCEPTED = 202;

export async function retryRunLog(
  em: EntityManager,
  temporal: Client,
  automation: Automation,
  logId: string,
  choice: RetryChoice,
  idempotencyKey?: string,
): Promise<IdempotentAnswer<RetryQueued>> {
  const run = await prepareRetry(em, temporal, automation, logId, choice, nodeFactsOf);
  const queue = async (tx: EntityManager): Promise<RetryQueued> => {
    const eventId = await queueRetry(tx, { run, originalId: logId, ...choice });
    return { id: run.runWorkflowId, retryOf: logId, ...choice, eventId: eventId! };
  };
  const answer = idempotencyKey
    ? await em.transactional((tx) =>
        oncePerKey(tx, { scope: `retry:${logId}`, key: idempotencyKey, requestHash: bodyDigest(choice) }, ACCEPTED, () => queue(tx)),
      )
    : { status: ACCEPTED, body: await queue(em), replayed: false };
  if (!answer.replayed) await em.getKnex().raw(`select pg_notify(?, '')`, [OUTBOX_CHANNEL]);
  return answer;
}
