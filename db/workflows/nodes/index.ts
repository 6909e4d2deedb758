/**
 * Node checks by type: adding a node type adds one file here and one line below. Types without a specific
 * check get only the common checks of the graph service (shape, id, alias, position).
 */
import type { WorkflowNodeType } from '../../../lib/graph/workflow-nodes.js';
import { checkAutomationStatus } from './automation-status.node.js';
import { checkBreak } from './break.node.js';
import { checkCreateRecordActivity } from './create-record-activity.node.js';
import { checkIteration } from './iteration.node.js';
import { checkScheduledTrigger } from './scheduled-trigger.node.js';
import { checkTrigger } from './trigger.node.js';
import type { NodeCheck } from './types.js';
import { checkUrl } from './url.node.js';

export const NODE_CHECKS: Partial<Record<WorkflowNodeType, NodeCheck>> = {
  TRIGGER: checkTrigger,
  SCHEDULED_TRIGGER: checkScheduledTrigger,
  WEBHOOK: checkUrl,
  API: checkUrl,
  BREAK: checkBreak,
  AUTOMATION_STATUS: checkAutomationStatus,
  ITERATION: checkIteration,
  CREATE_RECORD_ACTIVITY: checkCreateRecordActivity,
};

export type { NodeCheckContext } from './types.js';
