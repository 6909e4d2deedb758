/** One AI call on the provider, as the `aiCall` activity and in-process sessions (phrase suggestions) make it. */
import type { AiCallModel, AiReply, ChatCall, TranscriptionCall } from '../../lib/runtime/ai-call.js';
import { aiCallDuration, aiTokens } from './ai-metrics.js';
import type { AiProvider, ChatResponse } from './ai-provider.js';
import type { OutboundFetch } from '../outbound/outbound-fetch.js';
import { downloadFile } from './download.js';

export interface PerformOptions {
  signal?: AbortSignal;
  /** Timeout of a transcription's audio download. */
  downloadTimeoutMs: number;
  /** The client a transcription's audio is downloaded with (the outbound address policy). */
  outbound: OutboundFetch;
  /** Charges the call's credits, after the audio is downloaded and before the provider is called; throws when refused. */
  pay: () => Promise<void>;
}

/**
 * Makes `call` on `model` (a transcription downloads its audio first) and answers the reply with its record:
 * tokens, latency and the model's credits, which `options.pay` charges just before the provider is called (so an
 * audio file that cannot be downloaded costs nothing). Metrics are recorded here.
 */
export async function performAiCall(
  provider: AiProvider,
  model: AiCallModel,
  call: ChatCall | TranscriptionCall,
  options: PerformOptions,
): Promise<AiReply> {
  const { signal } = options;
  const audio =
    call.kind === 'transcription'
      ? await downloadFile(options.outbound, call.audioUrl, call.maxBytes, signal ?? new AbortController().signal, options.downloadTimeoutMs)
      : null;
  await options.pay();
  const started = performance.now();
  let outcome = 'failure';
  try {
    let response: ChatResponse;
    if (audio) {
      const { text } = await provider.transcribe({
        model: model.externalId,
        audio: audio.bytes,
        fileName: audio.fileName,
        contentType: audio.contentType,
        signal,
      });
      response = { content: text, toolCalls: [], usage: { promptTokens: 0, completionTokens: 0 } };
    } else {
      const chat = call as ChatCall;
      response = await provider.chat({ model: model.externalId, messages: chat.messages, jsonSchema: chat.jsonSchema, tools: chat.tools, signal });
    }
    outcome = 'success';
    const { promptTokens, completionTokens } = response.usage;
    aiTokens.inc({ model: model.externalId, kind: 'prompt' }, promptTokens);
    aiTokens.inc({ model: model.externalId, kind: 'completion' }, completionTokens);
    return {
      kind: call.kind,
      content: response.content,
      toolCalls: response.toolCalls,
      record: {
        model: model.externalId,
        promptTokens,
        completionTokens,
        latencyMs: Math.round(performance.now() - started),
        credits: model.creditsPerMessage,
      },
    };
  } finally {
    aiCallDuration.observe({ model: model.externalId, outcome }, (performance.now() - started) / 1000);
  }
}
