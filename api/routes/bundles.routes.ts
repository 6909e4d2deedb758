/**
 * Bundles (docs/versions-and-bundles.md#bundles): `GET /agents/{agentId}/export` and `GET /workflows/{workflowId}/export`
 * answer one JSON file (sorted keys, a checksum, no secret); `POST /imports` imports one into the key's account,
 * dry run or applied in one transaction, answering the plan. Imports of an account take one lock, one after another.
 */
import type { Client } from '@temporalio/client';
import { TemporalAutomationSchedules } from '../../integrations/temporal/automation-schedules.js';
import { nodeFactsOf } from '../../nodes/registry.js';
import { importRules } from '../schemas/node-shapes.js';
import { exportAgent } from '../../db/bundles/agent-bundle.js';
import { importBundle, type ImportRequest } from '../../db/bundles/imports.service.js';
import { exportWorkflow } from '../../db/bundles/workflow-bundle.js';
import { findAutomation, updateAutomation } from '../../db/automations/automations.service.js';
import { Reply, type RouteRegistry } from '../route-registry.js';
import { BundleSchema, ImportPlanSchema, ImportRequestSchema } from '../schemas/bundles.schema.js';
import { agentParams, type AgentId } from './agents/agent-params.js';

const tag = 'Bundles';
const workflowParams = { type: 'object', required: ['workflowId'], properties: { workflowId: { type: 'integer', minimum: 1 } } };

export function bundleRoutes(api: RouteRegistry, temporal: Client, config: { taskQueue: string; publicBaseUrl: string }): void {
  const schedules = new TemporalAutomationSchedules(temporal, config.taskQueue, nodeFactsOf);
  const rules = { ...importRules(), publicBaseUrl: config.publicBaseUrl };
  api.add<unknown, { documents?: boolean }, AgentId>({
    method: 'get',
    operationId: 'exportAgent',
    path: '/agents/:agentId/export',
    scope: 'any',
    tag,
    summary:
      'The agent as a bundle: settings (no secret), variables, intents, every flow with its draft and live graphs, and the custom tools, ' +
      'playbooks and knowledge bases it references; documents=true adds the knowledge bases’ documents',
    params: agentParams(),
    query: { type: 'object', additionalProperties: false, properties: { documents: { type: 'boolean' } } },
    responses: { 200: { description: 'The bundle', schema: BundleSchema } },
    handler: ({ auth, em, params, query }) => exportAgent(em, auth.account.id, params.agentId, { documents: !!query.documents }),
  });
  api.add<unknown, { tables?: boolean }, { workflowId: number }>({
    method: 'get',
    operationId: 'exportWorkflow',
    path: '/workflows/:workflowId/export',
    scope: 'any',
    tag,
    summary:
      'The workflow as a bundle: settings, variables, draft and live graphs, the incoming webhooks it names (never their tokens) and ' +
      'the Tables and Objects its nodes name; tables=true adds their schemas, so an import creates the missing ones',
    params: workflowParams,
    query: { type: 'object', additionalProperties: false, properties: { tables: { type: 'boolean' } } },
    responses: { 200: { description: 'The bundle', schema: BundleSchema } },
    handler: ({ auth, em, params, query }) => exportWorkflow(em, auth.account.id, params.workflowId, { tables: !!query.tables }),
  });
  api.add<ImportRequest>({
    method: 'post',
    operationId: 'importBundle',
    path: '/imports',
    scope: 'U',
    tag,
    summary:
      'Imports a bundle (an agent, a workflow, a Table or Object schema): dryRun answers the plan (what is created, updated or kept, the id ' +
      'mapping, references to connect, conflicts) and changes nothing; applied, everything is done in one transaction and the plan carries ' +
      'the new ids. A changed bundle imported again updates what the earlier import made, in place; the same bundle again changes nothing. ' +
      'Imported agents start offline, imported workflows DRAFT unless activate is true',
    body: ImportRequestSchema,
    largeBody: true,
    status: 201,
    responses: {
      201: { description: 'The plan, applied', schema: ImportPlanSchema },
      200: { description: 'The plan of a dry run, of an update, or of a bundle imported before (nothing changed)', schema: ImportPlanSchema },
    },
    lock: () => 'bundle-imports',
    handler: async ({ auth, em, body }) => {
      const plan = await importBundle(em, auth.account.id, body, rules);
      const created = !plan.dryRun && plan.action === 'create';
      if (created && body.activate && plan.kind === 'workflow') {
        await updateAutomation(em, await findAutomation(em, auth.account.id, Number(plan.target.id)), { status: 'ACTIVE' }, schedules, {
          publishDraft: false,
        });
      }
      return new Reply(created ? 201 : 200, plan);
    },
  });
}
