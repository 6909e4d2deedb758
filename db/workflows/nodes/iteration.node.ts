import { invalid, knownReference, missing, type NodeCheck } from './types.js';

/** ITERATION: loops over a declared variable or a node's output. */
export const checkIteration: NodeCheck = (node, ctx) => {
  const { variableName, variablePath, continueOnError } = node.data;
  const issues = [];
  if (typeof variableName !== 'string' || !variableName) issues.push(missing('variableName'));
  else if (!knownReference(variableName, ctx)) issues.push({ code: 'not_found', path: 'data.variableName', message: `no variable or node named "${variableName}"` });
  if (variablePath != null && typeof variablePath !== 'string') issues.push(invalid('variablePath', 'must be a dot path'));
  if (continueOnError != null && typeof continueOnError !== 'boolean') issues.push(invalid('continueOnError', 'must be a boolean'));
  return issues;
};
