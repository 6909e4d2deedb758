/** TOOLS_AI: the AI chooses which custom tool (or table tool) to call. Runs once the AI gateway lands. */
import { modelCheck } from './checks/ai-model.check.js';
import { checkCaptureVariables } from './checks/capture-variables.check.js';
import { notFound, type NodeCheck } from './checks/check-context.js';
import { CAPTURE_VARIABLES, DEFAULT_HANDLES, MODEL_FIELDS, idList, type NodeModule } from './node-module.js';
import { RecordType } from '../../db/entities/index.js';

/** `selectedRecordTypes[].id`: record types of the account's Objects and Tables, the table tools the AI may use. */
const checkRecordTypes: NodeCheck = async (node, { em, accountId }) => {
  const selected = Array.isArray(node.data.selectedRecordTypes) ? (node.data.selectedRecordTypes as { id: number }[]) : [];
  if (!selected.length) return [];
  const found = await em.find(RecordType, { id: { $in: selected.map((s) => s.id) }, table: { account: accountId } }, { fields: ['id'] });
  const ids = new Set(found.map((r) => r.id));
  return selected.flatMap((s, i) => (ids.has(s.id) ? [] : [notFound(`selectedRecordTypes[${i}].id`, `no record type ${s.id} in this account`)]));
};

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
      selectedRecordTypes: {
        type: ['array', 'null'],
        maxItems: 100,
        items: { type: 'object', required: ['id'], properties: { id: { type: 'integer', minimum: 1, maximum: 2147483647 } } },
      },
      captureVariables: CAPTURE_VARIABLES,
      connectedAccountId: { type: ['integer', 'null'] },
      ...MODEL_FIELDS,
    },
  },
  handles: DEFAULT_HANDLES,
  interpolated: ['instructions', 'prompt'],
  captures: 'captureVariables',
  checks: [modelCheck('TEXT'), checkCaptureVariables, checkRecordTypes],
};
