import { Workflow } from '../../entities/index.js';
import { invalid, notFound, type NodeCheck } from './types.js';

const ACTIONS = ['SET_ACTIVE', 'SET_DRAFT', 'TOGGLE'];

/** AUTOMATION_STATUS: another workflow of the account, and what to do with its status. */
export const checkAutomationStatus: NodeCheck = async (node, { em, accountId }) => {
  const { automationId, action } = node.data;
  const issues = [];
  if (!ACTIONS.includes(action as string)) issues.push(invalid('action', `must be one of ${ACTIONS.join(', ')}`));
  if (!Number.isInteger(automationId)) issues.push(invalid('automationId', 'must be a workflow id'));
  else if (!(await em.count(Workflow, { id: automationId as number, account: accountId, deletedAt: null }))) {
    issues.push(notFound('automationId', `no workflow ${automationId} in this account`));
  }
  return issues;
};
