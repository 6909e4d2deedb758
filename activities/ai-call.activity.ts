/**
 * The `aiCall` activity: one AI call a node asked for (`NodeOutcome.aiCall`), made on the provider with the
 * activity's own timeouts and retry policy (`workflows/node-runner.ts`), so every call shows in the run's Temporal
 * history with its request and reply. 429 and 5xx answers, timeouts and network errors fail the attempt retryably
 * (after `Retry-After` when the provider says it); other 4xx fail the call at once.
 *
 * Credits are charged once per call, under the call's key: an attempt that finds the charge recorded does not pay
 * again. `refundAiCall` gives them back when the call finally fails.
 */
import { ApplicationFailure } from '@temporalio/activity';
import { heartbeating } from './heartbeating.js';
import { chargeCredits, refundCredits } from '../db/automations/run-ledger.js';
import type { Orm } from '../db/orm.js';
import type { AiCallRequest, AiReply } from '../lib/runtime/ai-call.js';
import type { OutboundFetch } from '../integrations/outbound/outbound-fetch.js';
import { toFailure } from './execute-node.activity.js';
import { once, recordedEffect } from '../db/node-effects/node-effects.js';
import { AI_NOT_CONFIGURED, insufficientCredits } from '../integrations/ai/ai-gateway.js';
import { AiProviderUnavailableError, type AiProvider } from '../integrations/ai/ai-provider.js';
import { performAiCall } from '../integrations/ai/perform-ai-call.js';
import { expandPassages } from '../integrations/knowledge/grounding.js';

/** The longest `Retry-After` honoured as asked; a longer one waits this long (the retry policy still bounds attempts). */
export const MAX_RETRY_AFTER_MS = 5 * 60_000;

export interface AiCallDeps {
  orm: Orm;
  provider: AiProvider | null;
  /** Timeout of a transcription's audio download. */
  httpTimeoutMs: number;
  /** The client a transcription's audio is downloaded with (the outbound address policy). */
  outbound: OutboundFetch;
}

const chargeKey = (request: AiCallRequest) => `${request.callKey}/charge`;

export function createAiCallActivities({ orm, provider, httpTimeoutMs, outbound }: AiCallDeps) {
  return {
    async aiCall(request: AiCallRequest): Promise<AiReply> {
      if (!provider) throw ApplicationFailure.nonRetryable(AI_NOT_CONFIGURED, 'AiNotConfigured');
      return heartbeating(async (context) => {
        try {
          // Knowledge-base passages are named by id in the request (and the history); their text joins the call here.
          const call = request.call.kind === 'chat' ? await expandPassages(orm.em.fork(), request.accountId, request.call) : request.call;
          return await performAiCall(provider, request.model, call, {
            signal: context.cancellationSignal,
            downloadTimeoutMs: httpTimeoutMs,
            outbound,
            pay: async () => {
              const { accountId, model } = request;
              const charged = await once(orm.em, chargeKey(request), (tx) => chargeCredits(tx, accountId, model.creditsPerMessage));
              if (!charged) throw insufficientCredits(model);
            },
          });
        } catch (error) {
          if (context.cancellationSignal.aborted || !(error instanceof AiProviderUnavailableError))
            throw toFailure(error, context.cancellationSignal.aborted);
          const { retryAfterMs } = error;
          throw ApplicationFailure.create({
            message: error.message,
            type: 'AiProviderUnavailable',
            ...(retryAfterMs ? { nextRetryDelay: Math.min(retryAfterMs, MAX_RETRY_AFTER_MS) } : {}),
          });
        }
      });
    },

    /** Gives back what `aiCall` charged for a call that finally failed (once; nothing when it was never charged). */
    async refundAiCall(request: AiCallRequest): Promise<void> {
      await once(orm.em, `${request.callKey}/refund`, async (tx) => {
        const charged = (await recordedEffect(tx, chargeKey(request))) === true;
        if (charged) await refundCredits(tx, request.accountId, request.model.creditsPerMessage);
        return charged;
      });
    },
  };
}
