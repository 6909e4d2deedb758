/**
 * ITERATION: loops over an array (SPEC.md, ITERATION node data). The interpreter runs it (workflows/interpreter/interpreter.ts):
 * the `body` path once per item with `{<nodeId>.item|index|length}` in scope, then `completed`; `empty` when
 * there are no items. Its output is the loop's summary.
 */
import { knownReference, missing, type NodeCheck } from './checks/check-context.js';
import type { NodeModule } from './node-module.js';

const checkIteration: NodeCheck = (node, ctx) => {
  const { variableName } = node.data;
  if (typeof variableName !== 'string' || !variableName) return [missing('variableName')];
  if (!knownReference(variableName, ctx))
    return [{ code: 'not_found', path: 'data.variableName', message: `no variable or node named "${variableName}"` }];
  return [];
};

export const iterationNode: NodeModule = {
  type: 'ITERATION',
  scopes: ['automation'],
  summary: 'Loops over an array: body runs once per item, then completed; empty when there are no items (at most 50)',
  data: {
    required: ['variableName'],
    properties: {
      variableName: { type: 'string', minLength: 1, description: 'A workflow variable, or a node id or alias (its output)' },
      variablePath: { type: ['string', 'null'], description: 'Dot path inside it; empty for a DYNAMIC_TABLES SEARCH output' },
      continueOnError: { type: ['boolean', 'null'], description: 'true: a failed item is skipped; false: it fails the run' },
    },
  },
  handles: ['body', 'completed', 'empty'],
  checks: [checkIteration],
};
