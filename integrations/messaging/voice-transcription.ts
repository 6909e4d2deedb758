/**
 * Voice messages on WhatsApp, Messenger and Instagram, heard through the TRANSCRIPTION path: the audio is downloaded
 * from the network (meta-media.ts, at most MAX_AUDIO_BYTES), the account is charged the default TRANSCRIPTION model's
 * credits, and the provider's `/audio/transcriptions` writes the text the agent reads as the person's message
 * (recorded with `metadata.voice: true`).
 *
 * It runs inside the routing activity (`acceptChannelMessage`, inbound-routing.ts), which is retried: the outcome is
 * recorded once per network message under `voiceKey(event)` (`once`: the transcript, or why the audio could not be
 * heard), so a retried attempt or a redelivery answers it without downloading, charging or transcribing again; the
 * charge and its refund have keys of their own. Transient failures (network, 5xx, the provider unavailable) are
 * thrown to retry the activity, up to VOICE_ATTEMPTS; past them, or on a permanent failure (no provider, no
 * TRANSCRIPTION model, a 4xx, a file too large, no credits left, an empty transcript), the message is answered as
 * today: the agent says it cannot read voice messages.
 */
import { chargeCredits, refundCredits } from '../../db/automations/run-ledger.js';
import { connectionFor } from '../../db/channels/network-accounts.service.js';
import type { Orm } from '../../db/orm.js';
import { once, recordedEffect } from '../../db/node-effects/node-effects.js';
import { AiProviderUnavailableError, type AiProvider } from '../ai/ai-provider.js';
import { MAX_AUDIO_BYTES } from '../ai/download.js';
import { resolveModel } from '../ai/model-resolution.js';
import type { MessagingConfig } from './cloud-api-messaging.js';
import { downloadMedia, MediaUnavailable, type MediaSource } from './meta-media.js';
import { sendTargetOf } from './send-target.js';
import { inboundKey, type InboundMessageEvent } from '../../lib/channels/channel-contract.js';
import { NodeError } from '../../lib/errors.js';
import type { SecretBox } from '../../lib/secret-box.js';

/** Attempts of the routing activity that may try the audio again (its retry policy allows more, for routing itself). */
export const VOICE_ATTEMPTS = 8;

/** What a voice message came to, recorded once per network message. */
export type VoiceOutcome = { text: string; credits: number } | { unheard: string };

/** A person's voice message, heard: the text the agent reads, and what the transcript records with it. */
export interface Heard {
  text: string;
  metadata: { voice: true };
}

export interface VoiceDeps {
  orm: Orm;
  provider: AiProvider | null;
  secrets: SecretBox | null;
  /** The worker's MESSAGING_API_URL and token: what a number without its own Cloud API settings downloads through. */
  messaging: MessagingConfig | null;
  httpTimeoutMs: number;
}

/** The key a message's outcome is recorded under (`/charge` and `/refund` are its credits'). */
export const voiceKey = (event: InboundMessageEvent) => `${inboundKey(event)}/voice`;

/** Whether `event` is audio the agent may hear: no text, and where to fetch it (a WhatsApp media id or a URL). */
export const isVoice = (event: InboundMessageEvent) =>
  !event.text?.trim() && event.media?.type === 'audio' && !!(event.media.mediaId || event.media.url);

/** The attempt of the activity the work runs in, and its cancellation. */
export interface ActivityAttempt {
  attempt: number;
  signal: AbortSignal;
}

/** Outside an activity (a test, the API): the first attempt, never cancelled. */
const FIRST_ATTEMPT: ActivityAttempt = { attempt: 1, signal: new AbortController().signal };

/** Thrown for a failure hearing the audio will not get past. */
class Unheard extends Error {}

export function createVoiceTranscriber(deps: VoiceDeps) {
  const { orm, provider } = deps;

  /** Where the audio is: a WhatsApp media id behind the number's Cloud API (its token), or the attachment's URL. */
  async function sourceOf(event: InboundMessageEvent): Promise<MediaSource> {
    const media = event.media!;
    if (event.channel !== 'messaging' || !media.mediaId) {
      if (!media.url) throw new Unheard('the attachment has no URL');
      return { kind: 'url', url: media.url };
    }
    const connection = await connectionFor(orm.em.fork(), event.accountId, event.channel, event.networkAccountId);
    if (!connection) throw new Unheard(`${event.networkAccountId} is no longer connected`);
    const target = sendTargetOf(connection, deps.secrets, deps.messaging);
    if ('missing' in target)
      throw new Unheard(
        target.missing === 'undecryptable'
          ? `the access token of ${event.networkAccountId} cannot be decrypted`
          : `no access token to download media of ${event.networkAccountId}`,
      );
    return { kind: 'cloud-api', baseUrl: target.baseUrl, token: target.token, mediaId: media.mediaId };
  }

  /** Downloads, charges and transcribes; throws `Unheard` when it cannot, anything else to retry. */
  async function transcribe(event: InboundMessageEvent, key: string, { attempt, signal }: ActivityAttempt): Promise<VoiceOutcome> {
    let model;
    try {
      model = await resolveModel(orm.em.fork(), {}, 'TRANSCRIPTION');
    } catch (error) {
      if (error instanceof NodeError) throw new Unheard(error.message);
      throw error;
    }
    let audio;
    try {
      audio = await downloadMedia(await sourceOf(event), { maxBytes: MAX_AUDIO_BYTES, signal, timeoutMs: deps.httpTimeoutMs });
    } catch (error) {
      if (error instanceof MediaUnavailable) throw new Unheard(error.message);
      throw error;
    }
    // Charged once per message, after the audio is had and before the provider is called, as the aiCall activity does.
    const charged = await once(orm.em, `${key}/charge`, (tx) => chargeCredits(tx, event.accountId, model.creditsPerMessage));
    if (!charged) throw new Unheard(`insufficient credits for "${model.name}" (${model.creditsPerMessage} credits)`);
    try {
      const { text } = await provider!.transcribe({
        model: model.externalId,
        audio: audio.bytes,
        fileName: audio.fileName,
        contentType: audio.contentType,
        signal,
      });
      if (!text.trim()) throw new Unheard('the transcript is empty');
      return { text: text.trim(), credits: model.creditsPerMessage };
    } catch (error) {
      const permanent = error instanceof Unheard || !(error instanceof AiProviderUnavailableError || signal.aborted);
      if (permanent || attempt >= VOICE_ATTEMPTS) {
        await once(orm.em, `${key}/refund`, async (tx) => {
          await refundCredits(tx, event.accountId, model.creditsPerMessage);
          return true;
        });
        throw error instanceof Unheard ? error : new Unheard((error as Error).message);
      }
      throw error;
    }
  }

  /**
   * The text of a voice message (null: not a voice message, no provider, or the audio could not be heard, which the
   * caller answers as media it cannot read). Computed once per network message.
   */
  return async function hear(event: InboundMessageEvent, activity: ActivityAttempt = FIRST_ATTEMPT): Promise<Heard | null> {
    if (!provider || !isVoice(event)) return null;
    const key = voiceKey(event);
    let outcome = await recordedEffect<VoiceOutcome>(orm.em.fork(), key);
    if (!outcome) {
      let found: VoiceOutcome;
      try {
        found = await transcribe(event, key, activity);
      } catch (error) {
        const lastTry = activity.attempt >= VOICE_ATTEMPTS;
        if (!(error instanceof Unheard) && !lastTry) throw error;
        found = { unheard: (error as Error).message };
      }
      // Two attempts at once record one outcome: the second answers the first's.
      outcome = await once(orm.em, key, async () => found);
    }
    return 'text' in outcome ? { text: outcome.text, metadata: { voice: true } } : null;
  };
}

export type VoiceTranscriber = ReturnType<typeof createVoiceTranscriber>;
