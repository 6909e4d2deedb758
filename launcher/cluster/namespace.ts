/**
 * A Temporal cluster of our own starts empty: agentry's namespace is registered with the run history retention
 * (README, Run history) and agentry's search attributes are added to it (PostgreSQL advanced visibility), once.
 */
import type { Client } from '@temporalio/client';
import { encodeSearchAttributeIndexedValueType } from '@temporalio/common/lib/search-attributes.js';
import { msToTs } from '@temporalio/common/lib/time.js';
import { SEARCH_ATTRIBUTES } from '../../lib/search-attributes.js';

const NOT_FOUND = 5;

/** Registers `namespace` when it does not exist; answers whether it did. */
export async function ensureNamespace(client: Client, namespace: string, retentionDays: number): Promise<boolean> {
  try {
    await client.workflowService.describeNamespace({ namespace });
    return false;
  } catch (error) {
    if ((error as { code?: number }).code !== NOT_FOUND) throw error;
  }
  await client.workflowService.registerNamespace({ namespace, workflowExecutionRetentionPeriod: msToTs(retentionDays * 86_400_000) });
  return true;
}

/** Adds agentry's search attributes that `namespace` lacks; answers their names. */
export async function ensureSearchAttributes(client: Client, namespace: string): Promise<string[]> {
  const { customAttributes } = await client.connection.operatorService.listSearchAttributes({ namespace });
  const missing = SEARCH_ATTRIBUTES.filter((key) => !customAttributes?.[key.name]);
  if (missing.length)
    await client.connection.operatorService.addSearchAttributes({
      namespace,
      searchAttributes: Object.fromEntries(missing.map((key) => [key.name, encodeSearchAttributeIndexedValueType(key.type)!])),
    });
  return missing.map((key) => key.name);
}
