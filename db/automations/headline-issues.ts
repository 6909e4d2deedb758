/**
 * Issues whose message is the whole error message of the request. Node errors are normally summed up as
 * `Invalid node: <path> <message>`; SPEC.md fixes some texts exactly (`Unsupported trigger: <slug>`, the trigger
 * config messages), so a node check marks those issues and the graph service answers their message as is.
 */
import type { Issue } from '../../lib/errors.js';

const HEADLINES = new WeakSet<Issue>();

/** Marks an issue whose message is a complete sentence to answer as the error message. */
export function headline(issue: Issue): Issue {
  HEADLINES.add(issue);
  return issue;
}

/** The message of the first marked issue, if any. */
export function headlineOf(issues: readonly Issue[]): string | undefined {
  return issues.find((issue) => HEADLINES.has(issue))?.message;
}
