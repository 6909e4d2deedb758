import { checkHealth, type HealthDeps } from '../health.service.js';
import { Reply, type RouteRegistry } from '../route-registry.js';

const probeSchema = {
  type: 'object',
  required: ['ok', 'latencyMs'],
  properties: { ok: { type: 'boolean' }, latencyMs: { type: 'number' }, error: { type: 'string' } },
};

export function healthRoutes(api: RouteRegistry, deps: HealthDeps): void {
  api.add<unknown, { worker: boolean }>({
    method: 'get',
    operationId: 'getHealth',
    path: '/healthz',
    scope: 'public',
    tag: 'Operations',
    summary: 'Database and Temporal reachability (and the AI gateway: not configured, up or down); with worker=true also runs a workflow on a worker',
    query: {
      type: 'object',
      additionalProperties: false,
      properties: { worker: { type: 'boolean', default: false } },
    },
    responses: {
      200: { description: 'Everything checked answers', schema: { type: 'object', properties: { database: probeSchema } } },
      503: { description: 'Something checked does not answer' },
    },
    handler: async ({ query }) => {
      const report = await checkHealth(deps, { worker: query.worker });
      return new Reply(report.ok ? 200 : 503, report);
    },
  });
}
