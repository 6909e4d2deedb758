import type { EntityManager } from '@mikro-orm/postgresql';
import type { Issue } from '../../lib/errors.js';
import { findAiModel, findModelByExternalId } from '../../db/catalogs/ai-models.service.js';
import type { AiModel, AiModelType } from '../../db/catalogs/ai-model.entity.js';
import { invalid, notFound, type NodeCheck } from './check-context.js';

/** Whether a node, as configured, calls a model; the model fields of a node that does not are left unchecked. */
export type UsesAi = (data: Record<string, unknown>) => boolean;

/** CONDITIONAL_ROUTING evaluates its conditions with AI unless `useAi` is false (plain rules). */
export const routesWithAi: UsesAi = (data) => data.useAi !== false;

/** SEND_MESSAGE sends its `message` as written unless `isDynamic` is true (an AI-generated message). */
export const sendsDynamicMessage: UsesAi = (data) => data.isDynamic === true;

const always: UsesAi = () => true;

/** Why a found model cannot serve the node (wrong type first, then deprecation), or null. */
function unusable(model: AiModel, type: AiModelType, nodeType: string, path: string): Issue | null {
  // Node types are upper case (TOOLS_AI nodes need…); another user of the check names itself (the agent setting needs…).
  const needs = /^[A-Z_]+$/.test(nodeType) ? `${nodeType} nodes need` : `${nodeType} needs`;
  if (model.type !== type) return invalid(path, `"${model.name}" is a ${model.type} model; ${needs} a ${type} model`);
  if (model.deprecated) return invalid(path, `"${model.name}" is deprecated; choose another ${type} model (GET /ai-models?type=${type})`);
  return null;
}

async function byId(node: { type: string }, aiModelId: unknown, type: AiModelType, em: EntityManager): Promise<Issue | null> {
  if (typeof aiModelId !== 'number') return invalid('aiModelId', 'must be the numeric id of an AI model (GET /ai-models)');
  const model = await findAiModel(em, aiModelId);
  return model ? unusable(model, type, node.type, 'aiModelId') : notFound('aiModelId', `no AI model ${aiModelId}`);
}

async function byExternalId(node: { type: string }, model: unknown, aiVendor: unknown, type: AiModelType, em: EntityManager): Promise<Issue | null> {
  if (model != null && (typeof model !== 'string' || !model.trim()))
    return invalid('model', "must be the provider's model id (the model's externalId)");
  if (aiVendor != null && (typeof aiVendor !== 'string' || !aiVendor.trim())) return invalid('aiVendor', 'must be a vendor code such as OPENAI');
  if (model == null) return invalid('model', 'is required with aiVendor (or send aiModelId instead)');
  if (aiVendor == null) return invalid('aiVendor', 'is required with model (or send aiModelId instead)');
  const [externalId, vendor] = [model as string, aiVendor as string];
  // The pair may name the same provider model under several types: prefer the one the node needs.
  const found = (await findModelByExternalId(em, vendor, externalId, type)) ?? (await findModelByExternalId(em, vendor, externalId));
  return found
    ? unusable(found, type, node.type, 'model')
    : notFound('model', `no AI model "${externalId}" of vendor ${vendor.trim().toUpperCase()}`);
}

/**
 * The model a node runs on (SPEC.md, AI model, "Use by type"): `aiModelId`, or `model` + `aiVendor`, must name an
 * existing, non-deprecated model of `type`. Omitted: the type's default model is used at run time.
 */
export function modelCheck(type: AiModelType, usesAi: UsesAi = always): NodeCheck {
  return async (node, { em }) => {
    if (!usesAi(node.data)) return [];
    const { aiModelId, model, aiVendor } = node.data;
    const issues = [
      aiModelId != null ? await byId(node, aiModelId, type, em) : null,
      model != null || aiVendor != null ? await byExternalId(node, model, aiVendor, type, em) : null,
    ];
    return issues.filter((issue): issue is Issue => issue !== null);
  };
}
