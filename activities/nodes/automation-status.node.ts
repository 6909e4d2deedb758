import { ApplicationFailure } from '@temporalio/activity';
import { Workflow, type WorkflowStatus } from '../../db/entities/index.js';
import { updateWorkflow } from '../../db/workflows/workflows.service.js';
import { AppError } from '../../lib/errors.js';
import { TemporalAutomationSchedules } from '../../lib/schedules/temporal-automation-schedules.js';
import type { NodeExecutor } from './types.js';

/** What an AUTOMATION_STATUS node does to its target's status; TOGGLE turns ACTIVE into DRAFT and anything else into ACTIVE. */
function nextStatus(action: unknown, current: WorkflowStatus): WorkflowStatus {
  if (action === 'SET_ACTIVE') return 'ACTIVE';
  if (action === 'SET_DRAFT') return 'DRAFT';
  if (action === 'TOGGLE') return current === 'ACTIVE' ? 'DRAFT' : 'ACTIVE';
  throw ApplicationFailure.nonRetryable(`Unknown AUTOMATION_STATUS action ${String(action)}`, 'InvalidNode');
}

/**
 * AUTOMATION_STATUS: changes the status of another workflow of the account through the same service as the API, so
 * its schedules follow (paused on DRAFT, resumed on ACTIVE). It never publishes the target's draft: a target that
 * was never published becomes ACTIVE with nothing live to run. A deleted target fails the node at once.
 */
export const executeAutomationStatus: NodeExecutor = async ({ accountId, data }, { orm, temporal, taskQueue }) => {
  const em = orm.em.fork();
  const automationId = Number(data.automationId);
  const target = await em.findOne(Workflow, { id: automationId, account: accountId, deletedAt: null });
  if (!target) throw ApplicationFailure.nonRetryable(`Automation ${String(data.automationId)} no longer exists (it was deleted)`, 'AutomationNotFound');
  const previousStatus = target.status;
  const status = nextStatus(data.action, previousStatus);
  try {
    await updateWorkflow(em, target, { status }, new TemporalAutomationSchedules(temporal, taskQueue));
  } catch (error) {
    // A refusal (the target was deleted meanwhile, a schedule Temporal refuses) will not get better; Temporal being unreachable may.
    if (error instanceof AppError && error.status < 500) throw ApplicationFailure.nonRetryable(error.message, error.code);
    throw error;
  }
  return { output: { automationId, previousStatus, status } };
};
