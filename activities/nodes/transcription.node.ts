/** TRANSCRIPTION: transcribes an audio URL, optionally into variables. Runs once the AI gateway lands. */
import { modelCheck } from './checks/ai-model.check.js';
import { checkCaptureVariables } from './checks/capture-variables.check.js';
import { CAPTURE_VARIABLES, DEFAULT_HANDLES, MODEL_FIELDS, type NodeModule } from './node-module.js';

export const transcriptionNode: NodeModule = {
  type: 'TRANSCRIPTION',
  scopes: ['workflow'],
  summary: 'Transcribes an audio URL; the output is the text',
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
};
