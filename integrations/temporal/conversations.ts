/**
 * The conversation workflow as its clients drive it, the API's conversation routes and the messaging networks'
 * routing alike: its start options (written once here), its start, the update-with-start of its greeting (`begin`)
 * and of a person's message (`message`), and its other updates and termination on a running conversation.
 */
import { WithStartWorkflowOperation, type Client, type WorkflowStartOptions } from '@temporalio/client';
import {
  CONVERSATION_UPDATES,
  conversationWorkflowId,
  turnsTaskQueue,
  type ConversationInput,
  type TurnReply,
  type UserMessage,
} from '../../lib/runtime/conversation-contract.js';

/** The workflow type of a conversation (workflows/conversation.workflow.ts). */
const CONVERSATION = 'conversation';

/** `conversation:<id>` on the turns queue; a conversation already running is used as it is, so any start may repeat. */
function startOptions(taskQueue: string, input: ConversationInput): WorkflowStartOptions & { workflowIdConflictPolicy: 'USE_EXISTING' } {
  return {
    workflowId: conversationWorkflowId(input.conversationId),
    taskQueue: turnsTaskQueue(taskQueue),
    args: [input],
    workflowIdConflictPolicy: 'USE_EXISTING',
  };
}

const withStart = (taskQueue: string, input: ConversationInput) => new WithStartWorkflowOperation(CONVERSATION, startOptions(taskQueue, input));

/** The update id of a person's message: the same message sent again answers the same turn. */
const messageUpdateId = (messageId: string) => `message-${messageId}`;

/** Starts the conversation's workflow, or finds it running. */
export async function startConversationWorkflow(temporal: Client, taskQueue: string, input: ConversationInput): Promise<void> {
  await temporal.workflow.start(CONVERSATION, startOptions(taskQueue, input));
}

/** Runs the greeting turn (once per workflow run: repeated, it answers the same), starting the workflow when it is not running. */
export function beginConversation(temporal: Client, taskQueue: string, input: ConversationInput): Promise<TurnReply> {
  return temporal.workflow.executeUpdateWithStart<any, TurnReply, []>(CONVERSATION_UPDATES.begin, {
    startWorkflowOperation: withStart(taskQueue, input),
  });
}

/**
 * Hands a person's message (it has a `messageId`) to the conversation, starting the workflow when it is not running;
 * returns once the workflow accepted it, without waiting for its turn.
 */
export async function handMessageOver(
  temporal: Client,
  taskQueue: string,
  input: ConversationInput,
  message: UserMessage & { messageId: string },
): Promise<void> {
  await temporal.workflow.startUpdateWithStart(CONVERSATION_UPDATES.message, {
    args: [message],
    updateId: messageUpdateId(message.messageId),
    waitForStage: 'ACCEPTED',
    startWorkflowOperation: withStart(taskQueue, input),
  });
}

/** Runs one turn of a running conversation for the user's message; answers the agent's messages of that turn. */
export function runConversationTurn(temporal: Client, conversationId: string, message: UserMessage): Promise<TurnReply> {
  return temporal.workflow.getHandle(conversationWorkflowId(conversationId)).executeUpdate<TurnReply, [UserMessage]>(CONVERSATION_UPDATES.message, {
    args: [message],
    ...(message.messageId ? { updateId: messageUpdateId(message.messageId) } : {}),
  });
}

/** Ends a running conversation (the workflow fires CONVERSATION_ENDED once). */
export async function endConversationWorkflow(temporal: Client, conversationId: string, reason: string): Promise<void> {
  await temporal.workflow.getHandle(conversationWorkflowId(conversationId)).executeUpdate(CONVERSATION_UPDATES.end, { args: [{ reason }] });
}

/** Hands a running conversation to a person (`handoff`) or back to the agent (`resume`). */
export async function changeConversationHands(temporal: Client, conversationId: string, update: 'handoff' | 'resume'): Promise<void> {
  await temporal.workflow.getHandle(conversationWorkflowId(conversationId)).executeUpdate(CONVERSATION_UPDATES[update]);
}

/** Stops a conversation's workflow at once, whatever it is doing (a conversation that could not start); one not running is left alone. */
export async function terminateConversation(temporal: Client, conversationId: string, reason: string): Promise<void> {
  await temporal.workflow
    .getHandle(conversationWorkflowId(conversationId))
    .terminate(reason)
    .catch(() => undefined);
}
