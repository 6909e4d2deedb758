/**
 * Node checks by type: adding a node type adds one file here and one line below. A type lists the checks it
 * needs, run in order (shared rules such as the model or capture checks are listed by each type using them);
 * every type also gets the account-reference check, and the common checks of the graph service (shape, id,
 * alias, position) run before all of them.
 */
import { WORKFLOW_NODE_TYPES, type WorkflowNodeType } from '../../../lib/graph/workflow-nodes.js';
import { checkAccountReferences } from './account-references.check.js';
import { modelCheck, routesWithAi, sendsDynamicMessage } from './ai-model.check.js';
import { checkAutomationStatus } from './automation-status.node.js';
import { checkBreak } from './break.node.js';
import { checkApiVariables, checkCaptureVariables } from './capture-variables.check.js';
import { allOf } from './compose.js';
import { checkCreateRecordActivity } from './create-record-activity.node.js';
import { checkDynamicTables } from './dynamic-tables.node.js';
import { checkIteration } from './iteration.node.js';
import { checkScheduledTrigger } from './scheduled-trigger.node.js';
import { checkSendMessagingMessage } from './send-messaging-message.node.js';
import { checkTrigger } from './trigger.node.js';
import type { NodeCheck } from './types.js';
import { checkUrl } from './url.node.js';

const textModel = modelCheck('TEXT');

const CHECKS_BY_TYPE: Partial<Record<WorkflowNodeType, NodeCheck[]>> = {
  TRIGGER: [checkTrigger],
  SCHEDULED_TRIGGER: [checkScheduledTrigger],
  WEBHOOK: [checkUrl],
  API: [checkUrl, checkApiVariables],
  TOOLS_AI: [textModel, checkCaptureVariables],
  CONDITIONAL_ROUTING: [modelCheck('TEXT', routesWithAi)],
  AI_CAPTURE: [textModel, checkCaptureVariables],
  DATA_TRANSFORMER: [textModel],
  DYNAMIC_TABLES: [checkDynamicTables],
  BREAK: [checkBreak],
  AUTOMATION_STATUS: [checkAutomationStatus],
  ITERATION: [checkIteration],
  CREATE_RECORD_ACTIVITY: [checkCreateRecordActivity],
  SEND_MESSAGE: [modelCheck('TEXT', sendsDynamicMessage)],
  SEND_MESSAGING_MESSAGE: [checkSendMessagingMessage],
  TRANSCRIPTION: [modelCheck('TRANSCRIPTION'), checkCaptureVariables],
  FILE_ANALYSIS: [modelCheck('FILE_ANALYSIS')],
};

/** One check per node type, as the graph service calls it. */
export const NODE_CHECKS: Partial<Record<WorkflowNodeType, NodeCheck>> = Object.fromEntries(
  WORKFLOW_NODE_TYPES.map((type) => [type, allOf(...(CHECKS_BY_TYPE[type] ?? []), checkAccountReferences)]),
);

export type { NodeCheckContext } from './types.js';
