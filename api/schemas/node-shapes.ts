/**
 * The node rules of a bundle import: each node's shape and data checked against the request schema of its graph's
 * node body (`FlowNode`, `WorkflowNode`: its type's data schema), as `POST …/nodes` checks it, before the save-time
 * checks of its type. Used by `POST /imports` and `npm run admin -- import`.
 */
import type { GraphRules } from '../../db/automations/graph-rules.js';
import { BadRequestError, type Issue } from '../../lib/errors.js';
import { automationGraphRules, flowGraphRules } from '../../nodes/registry.js';
import { compileSchema, registerSharedSchema, validate, type JsonSchema } from '../validation.js';
import { FlowNodeSchema, FlowRefusedNodeSchemas } from './flow.schema.js';
import { NodeDataSchemas, NodeSchema, NodeTypeSchemas } from './workflow.schema.js';

function withNodeShapes(rules: GraphRules, schema: JsonSchema): GraphRules {
  const validator = compileSchema(schema);
  const shapeIssues = (node: Parameters<GraphRules['check']>[0]): Issue[] => {
    try {
      validate(validator, { nodeId: node.nodeId, alias: node.alias, position: node.position, type: node.type, data: node.data }, 'body');
      return [];
    } catch (error) {
      if (error instanceof BadRequestError)
        return (error.details?.issues as Issue[] | undefined) ?? [{ code: 'invalid', path: 'data', message: error.message }];
      throw error;
    }
  };
  return {
    ...rules,
    check: async (node, ctx) => {
      const issues = shapeIssues(node);
      return issues.length ? issues : rules.check(node, ctx);
    },
  };
}

/** The graph rules of flows and workflows with the node body schemas in front. */
export function importRules(): { flowRules: GraphRules; automationRules: GraphRules } {
  for (const schema of [...NodeDataSchemas, ...NodeTypeSchemas, ...FlowRefusedNodeSchemas]) registerSharedSchema(schema);
  return { flowRules: withNodeShapes(flowGraphRules, FlowNodeSchema), automationRules: withNodeShapes(automationGraphRules, NodeSchema) };
}
