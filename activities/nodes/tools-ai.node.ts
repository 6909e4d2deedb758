/** TOOLS_AI: the AI chooses which custom tool (or table tool) to call. Runs once the AI gateway lands. */
import { modelCheck } from './checks/ai-model.check.js';
import { checkCaptureVariables } from './checks/capture-variables.check.js';
import { CAPTURE_VARIABLES, DEFAULT_HANDLES, MODEL_FIELDS, idList, type NodeModule } from './node-module.js';

export const toolsAiNode: NodeModule = {
  type: 'TOOLS_AI',
  scopes: ['workflow', 'flow'],
  summary: 'The AI chooses a tool to call (custom tools, table tools) and may capture values into variables',
  data: {
    properties: {
      instructions: { type: ['string', 'null'], maxLength: 20000, description: 'Interpolable' },
      prompt: { type: ['string', 'null'], maxLength: 20000, description: 'Interpolable (workflows)' },
      customToolIds: idList('custom tools'),
      playbookIds: idList('playbooks'),
      knowledgeBaseIds: idList('knowledge bases'),
      selectedRecordTypes: { type: ['array', 'null'], items: { type: 'object', required: ['id'], properties: { id: { type: 'integer' } } } },
      captureVariables: CAPTURE_VARIABLES,
      connectedAccountId: { type: ['integer', 'null'] },
      ...MODEL_FIELDS,
    },
  },
  handles: DEFAULT_HANDLES,
  interpolated: ['instructions', 'prompt'],
  captures: 'captureVariables',
  checks: [modelCheck('TEXT'), checkCaptureVariables],
};
