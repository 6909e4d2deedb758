/**
 * Which catalog model a node runs on (SPEC.md, AI model, "Use by type"): `aiModelId`, or `model` + `aiVendor`,
 * or the default model of the type. Save-time checks already refused unknown, deprecated and mistyped models; a
 * model deprecated or removed since is a permanent failure at run time.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { findAiModel, findModelByExternalId } from '../../db/catalogs/ai-models.service.js';
import { AiModel, type AiModelType } from '../../db/catalogs/ai-model.entity.js';
import { NodeError } from '../../lib/errors.js';

export async function resolveModel(em: EntityManager, data: Record<string, unknown>, type: AiModelType): Promise<AiModel> {
  let model: AiModel | null;
  if (typeof data.aiModelId === 'number') model = await findAiModel(em, data.aiModelId);
  else if (typeof data.model === 'string' && typeof data.aiVendor === 'string')
    model = await findModelByExternalId(em, data.aiVendor, data.model, type);
  else model = await em.findOne(AiModel, { type, isDefault: true });
  if (!model) throw new NodeError(`No ${type} AI model matches the node's model settings (GET /ai-models?type=${type})`, 'AiModelNotFound');
  if (model.type !== type || model.deprecated) {
    throw new NodeError(`AI model "${model.name}" cannot serve this node: it must be a non-deprecated ${type} model`, 'AiModelNotFound');
  }
  return model;
}
