/** A tool TOOLS_AI offers the model: its definition, and how a call of it runs. */
import type { ToolDefinition } from '../../../integrations/ai/ai-provider.js';

export interface RunnableTool {
  definition: ToolDefinition;
  /** Runs one call with the model's arguments; `part` names the call for retry-safe side effects. Answers what the model reads. */
  run(args: Record<string, unknown>, part: string): Promise<unknown>;
}

/** A name the OpenAI-compatible API accepts for a function (letters, digits, `_` and `-`, at most 64). */
export function toolName(...parts: (string | number)[]): string {
  return parts
    .join('_')
    .replace(/[^A-Za-z0-9_-]+/g, '_')
    .slice(0, 64);
}
