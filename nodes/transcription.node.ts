/**
 * TRANSCRIPTION: the `aiCall` activity downloads `audioUrl` (at most 25 MB, the usual limit of transcription
 * endpoints) and sends it to the provider's transcription endpoint; the output is `{ text }`. With one capture
 * variable the transcript is captured into it; with several, the default TEXT model extracts each from the
 * transcript, as AI_CAPTURE does.
 */
import { resolveModel } from '../integrations/ai/model-resolution.js';
import { MAX_AUDIO_BYTES } from '../integrations/ai/download.js';
import { askCaptures, captureVariablesOf, readCaptures, text } from './support/ai-node-support.js';
import { askAi, lastReply, nodeModel, within, type StructuredState } from './support/ai-steps.js';
import { modelCheck } from './checks/ai-model.check.js';
import { checkCaptureVariables } from './checks/capture-variables.check.js';
import { CAPTURE_VARIABLES, DEFAULT_HANDLES, MODEL_FIELDS, type AiNodeSteps, type NodeModule } from './node-module.js';
import { NodeError } from '../lib/errors.js';

/** Before the transcript: nothing; while capturing from it: the transcript and the capture call. */
type TranscriptionState = { transcript: string; captures: StructuredState } | null;

/** `prepare` asks for the transcription; `finish` captures from it, asking for the extraction call first when several variables need it. */
const transcriptionSteps: AiNodeSteps<TranscriptionState> = {
  async prepare(input, context) {
    const audioUrl = text(input.data.audioUrl).trim();
    if (!audioUrl) throw new NodeError('TRANSCRIPTION needs an audioUrl');
    const model = await nodeModel(input, context, 'TRANSCRIPTION');
    return askAi(model, { kind: 'transcription', audioUrl, maxBytes: MAX_AUDIO_BYTES }, null);
  },
  async finish(input, context, replies, state) {
    const reply = lastReply(replies);
    if (state) {
      const read = readCaptures(state.captures, reply);
      if (!('captures' in read)) return within(read, (captures) => ({ transcript: state.transcript, captures }));
      return { output: { text: state.transcript, captures: read.captures } };
    }
    const transcript = reply.content;
    const variables = captureVariablesOf(input.data);
    if (variables.length === 1) return { output: { text: transcript, captures: { [variables[0].name]: transcript } } };
    if (!variables.length) return { output: { text: transcript, captures: {} } };
    const textModel = await resolveModel(context.orm.em.fork(), {}, 'TEXT');
    return within(askCaptures(textModel, variables, '', transcript), (captures) => ({ transcript, captures }));
  },
};

export const transcriptionNode: NodeModule = {
  type: 'TRANSCRIPTION',
  scopes: ['automation'],
  summary: 'Transcribes an audio URL; the output is { text, captures }',
  data: {
    properties: {
      audioUrl: { type: ['string', 'null'], maxLength: 8192, description: 'Interpolable' },
      captureVariables: CAPTURE_VARIABLES,
      ...MODEL_FIELDS,
    },
  },
  handles: DEFAULT_HANDLES,
  interpolated: ['audioUrl'],
  captures: 'captureVariables',
  checks: [modelCheck('TRANSCRIPTION'), checkCaptureVariables],
  ai: transcriptionSteps,
};
