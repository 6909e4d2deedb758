import type { NodeExecutor } from './types.js';

/** TRIGGER, WEBHOOK and SCHEDULED_TRIGGER: the run starts here; their output is the delivered event. */
export const executeEntry: NodeExecutor = async ({ triggerPayload }) => ({ output: triggerPayload ?? null });
