/**
 * Custom Temporal search attributes of agentry. Run lists (`/workflows/{id}/logs`) filter on them through
 * Temporal visibility, and operators can filter by them in the Temporal UI. The launcher, the test harness and
 * temporal-docker-compose.yml register exactly this list.
 */
import { defineSearchAttributeKey, SearchAttributeType } from '@temporalio/common';

export const ACCOUNT_ID = defineSearchAttributeKey('AgentryAccountId', SearchAttributeType.INT);
export const AUTOMATION_ID = defineSearchAttributeKey('AgentryAutomationId', SearchAttributeType.INT);
export const AGENT_ID = defineSearchAttributeKey('AgentryAgentId', SearchAttributeType.KEYWORD);
export const TRIGGER_TYPE = defineSearchAttributeKey('AgentryTriggerType', SearchAttributeType.KEYWORD);
export const EVENT_ID = defineSearchAttributeKey('AgentryEventId', SearchAttributeType.KEYWORD);

export const SEARCH_ATTRIBUTES = [ACCOUNT_ID, AUTOMATION_ID, AGENT_ID, TRIGGER_TYPE, EVENT_ID];

const CLI_TYPE_NAMES: Record<string, string> = {
  [SearchAttributeType.INT]: 'Int',
  [SearchAttributeType.KEYWORD]: 'Keyword',
};

/** Each search attribute's name and its type as the Temporal CLI and server binaries spell it (Int, Keyword). */
export function cliSearchAttributes(): { name: string; type: string }[] {
  return SEARCH_ATTRIBUTES.map((key) => ({ name: key.name, type: CLI_TYPE_NAMES[key.type]! }));
}

/** `--search-attribute Name=Type` arguments for `temporal server start-dev`. */
export function devServerSearchAttributeArgs(): string[] {
  return cliSearchAttributes().flatMap(({ name, type }) => ['--search-attribute', `${name}=${type}`]);
}
