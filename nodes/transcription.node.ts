/**
 * TRANSCRIPTION: the `aiCall` activity downloads `audioUrl` (at most 25 MB, the usual limit of transcription
 * endpoints) and sends it to the provider's transcription endpoint; the output is `{ text }`. With one capture
 * variable the transcript is captured into it; with several, the default TEXT model extracts each from the
 * transcript, as AI_CAPTURE does.
 */
import { resolveModel } from '../integrations/ai/model-resolution.js';
import { aiForNode, captureVariablesOf, extractCaptures, text } from './support/ai-node-support.js';
import { modelCheck } from './checks/ai-model.check.js';
import { checkCaptureVariables } from './checks/capture-variables.check.js';
import { CAPTURE_VARIABLES, DEFAULT_HANDLES, MODEL_FIELDS, type NodeExecutor, type NodeModule } from './node-module.js';
import { NodeError } from '../lib/errors.js';

export const MAX_AUDIO_BYTES = 25 * 1024 * 1024;

const executeTranscription: NodeExecutor = async (input, context) => {
  const audioUrl = text(input.data.audioUrl).trim();
  if (!audioUrl) throw new NodeError('TRANSCRIPTION needs an audioUrl');
  const { session, model } = await aiForNode(input, context, 'TRANSCRIPTION');
  const transcript = await session.transcribe(model, { audioUrl, maxBytes: MAX_AUDIO_BYTES });
  const variables = captureVariablesOf(input.data);
  let captures: Record<string, unknown> = {};
  if (variables.length === 1) captures = { [variables[0].name]: transcript };
  else if (variables.length > 1) {
    const textModel = await resolveModel(context.orm.em.fork(), {}, 'TEXT');
    captures = await extractCaptures(session, textModel, variables, '', transcript);
  }
  return { output: { text: transcript, captures }, aiCredits: session.credits };
};

export const transcriptionNode: NodeModule = {
  type: 'TRANSCRIPTION',
  scopes: ['workflow'],
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
  execute: executeTranscription,
};
