/** Entry point of the workflow bundle: every workflow type the worker serves. */
export { checkWorkerHealth } from './check-worker-health.workflow.js';
export { retryRuns } from './retry-runs.workflow.js';
export { runAutomation } from './run-automation.workflow.js';
export { conversation } from './conversation.workflow.js';
export { indexKnowledgeDocument } from './index-knowledge-document.workflow.js';
export { channelInbound, channelStatus, channelDelivery } from './channel.workflow.js';
