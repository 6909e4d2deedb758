/**
 * AUTOMATION_STATUS: changes the status of another workflow of the account through the same service as the API,
 * so its schedules follow (paused on DRAFT, resumed on ACTIVE). It never publishes the target's draft. The change
 * is made once per node execution: a retried TOGGLE does not flip the status back.
 */
import { updateAutomation } from '../db/automations/automations.service.js';
import { Automation, type AutomationStatus } from '../db/automations/automation.entity.js';
import { notFound, type NodeCheck } from './checks/check-context.js';
import { DEFAULT_HANDLES, type NodeExecutor, type NodeModule } from './node-module.js';
import { NodeError } from '../lib/errors.js';

const ACTIONS = ['SET_ACTIVE', 'SET_DRAFT', 'TOGGLE'] as const;

const checkTarget: NodeCheck = async (node, { em, accountId }) =>
  (await em.count(Automation, { id: node.data.automationId as number, account: accountId, deletedAt: null }))
    ? []
    : [notFound('automationId', `no workflow ${String(node.data.automationId)} in this account`)];

/** TOGGLE turns ACTIVE into DRAFT and anything else into ACTIVE. */
function nextStatus(action: unknown, current: AutomationStatus): AutomationStatus {
  if (action === 'SET_ACTIVE') return 'ACTIVE';
  if (action === 'SET_DRAFT') return 'DRAFT';
  return current === 'ACTIVE' ? 'DRAFT' : 'ACTIVE';
}

const executeAutomationStatus: NodeExecutor = async ({ accountId, data }, { once, schedules }) => {
  const automationId = Number(data.automationId);
  const output = await once(async (em) => {
    const target = await em.findOne(Automation, { id: automationId, account: accountId, deletedAt: null });
    if (!target) throw new NodeError(`Automation ${String(data.automationId)} no longer exists (it was deleted)`, 'AutomationNotFound');
    const previousStatus = target.status;
    const status = nextStatus(data.action, previousStatus);
    await updateAutomation(em, target, { status }, schedules);
    return { automationId, previousStatus, status };
  });
  return { output };
};

export const automationStatusNode: NodeModule = {
  type: 'AUTOMATION_STATUS',
  scopes: ['automation'],
  summary: "Changes another automation's status (its schedules follow); does not publish its draft",
  data: {
    required: ['automationId', 'action'],
    properties: {
      automationId: { type: 'integer', minimum: 1, description: 'A workflow of the account' },
      action: { enum: [...ACTIONS] },
    },
  },
  handles: DEFAULT_HANDLES,
  checks: [checkTarget],
  execute: executeAutomationStatus,
};
