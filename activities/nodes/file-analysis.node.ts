/** FILE_ANALYSIS: OCR plus AI analysis of a file from a URL. Runs once the AI gateway lands. */
import { modelCheck } from './checks/ai-model.check.js';
import { DEFAULT_HANDLES, MODEL_FIELDS, type NodeModule } from './node-module.js';

export const fileAnalysisNode: NodeModule = {
  type: 'FILE_ANALYSIS',
  scopes: ['workflow'],
  summary: 'OCR plus AI analysis of a file from a URL',
  data: {
    properties: {
      fileUrl: { type: ['string', 'null'], maxLength: 8192 },
      prompt: { type: ['string', 'null'], maxLength: 20000 },
      ...MODEL_FIELDS,
    },
  },
  handles: DEFAULT_HANDLES,
  checks: [modelCheck('FILE_ANALYSIS')],
};
