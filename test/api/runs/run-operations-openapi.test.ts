import { expect } from 'chai';
import { harness } from '../../setup/harness.js';

type Operation = { operationId: string; tags: string[]; requestBody?: unknown; responses: Record<string, unknown> };

describe('run operations in the OpenAPI document', () => {
  it('lists each operation under "Workflow runs", with its request body where it takes one and its 404', async () => {
    const doc = (await (await fetch(`${harness().baseUrl}/openapi.json`)).json()) as { paths: Record<string, Record<string, Operation>> };
    const operations = {
      'post /workflows/{workflowId}/logs/{logId}/retry': ['retryWorkflowRun', true],
      'post /workflows/{workflowId}/retries': ['startWorkflowRetryJob', true],
      'get /workflows/{workflowId}/retries/{jobId}': ['getWorkflowRetryJob', false],
      'delete /workflows/{workflowId}/retries/{jobId}': ['cancelWorkflowRetryJob', false],
      'post /workflows/{workflowId}/logs/{logId}/cancel': ['cancelWorkflowRun', false],
      'post /workflows/{workflowId}/logs/{logId}/terminate': ['terminateWorkflowRun', true],
      'post /workflows/{workflowId}/schedule/backfill': ['backfillWorkflowSchedule', true],
      'post /workflows/{workflowId}/schedule/trigger': ['triggerWorkflowSchedule', true],
    } as const;
    const found = Object.keys(operations).map((key) => {
      const [method, path] = key.split(' ') as [string, string];
      const operation = doc.paths[path]?.[method];
      return [
        key,
        operation?.operationId,
        operation?.tags.includes('Workflow runs'),
        operation?.requestBody !== undefined,
        '404' in (operation?.responses ?? {}),
      ];
    });
    expect(found).to.deep.equal(Object.entries(operations).map(([key, [id, body]]) => [key, id, true, body, true]));
  });
});
