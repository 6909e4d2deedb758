/** The global, read-only AI model catalog (seeded by migrations), and the lookups node validation uses. */
import type { EntityManager } from '@mikro-orm/postgresql';
import { ConflictError, NotFoundError } from '../../lib/errors.js';
import { AI_MODEL_TYPES, AiModel, type AiModelType } from './ai-model.entity.js';

const INT32_MAX = 2147483647;

/** An AI model as the API shows it (SPEC.md "AI model"). */
export interface AiModelView {
  id: number;
  name: string;
  description: string | null;
  type: AiModelType;
  aiVendor: string;
  reasoningModel: boolean;
  creditsPerMessage: number;
  isDefault: boolean;
  order: number;
  analyticsColor: string;
  externalId: string;
  deprecated: boolean;
}

export function aiModelView(m: AiModel): AiModelView {
  return {
    id: m.id,
    name: m.name,
    description: m.description ?? null,
    type: m.type,
    aiVendor: m.aiVendor,
    reasoningModel: m.reasoningModel,
    creditsPerMessage: m.creditsPerMessage,
    isDefault: m.isDefault,
    order: m.order,
    analyticsColor: m.analyticsColor,
    externalId: m.externalId,
    deprecated: m.deprecated,
  };
}

/** Every model (deprecated ones included, flagged), optionally of one type, by type then display order. */
export async function listAiModels(em: EntityManager, type?: AiModelType): Promise<AiModel[]> {
  const models = await em.find(AiModel, type ? { type } : {}, { orderBy: { order: 'asc', id: 'desc' } });
  return models.sort((a, b) => AI_MODEL_TYPES.indexOf(a.type) - AI_MODEL_TYPES.indexOf(b.type));
}

/** The default model of a type. */
export async function defaultAiModel(em: EntityManager, type: AiModelType): Promise<AiModel> {
  const model = await em.findOne(AiModel, { type, isDefault: true });
  if (!model) throw new NotFoundError(`No default AI model of type ${type}`);
  return model;
}

/** A model by id; 404 when unknown. */
export async function getAiModel(em: EntityManager, id: number): Promise<AiModel> {
  const model = await findAiModel(em, id);
  if (!model) throw new NotFoundError(`AI model ${id} not found`);
  return model;
}

/** A model by `aiModelId`, deprecated or not; null when unknown. Callers check `type` and `deprecated`. */
export async function findAiModel(em: EntityManager, id: number): Promise<AiModel | null> {
  if (!Number.isInteger(id) || Math.abs(id) > INT32_MAX) return null;
  return em.findOne(AiModel, { id });
}

/**
 * A model by the `model` + `aiVendor` pair a node may send instead of `aiModelId` (vendor case-insensitive).
 * One provider id can serve several types (gpt-4o is TEXT and FILE_ANALYSIS): pass `type` to pick one;
 * without it the TEXT entry wins. Null when unknown.
 */
export async function findModelByExternalId(em: EntityManager, vendor: string, externalId: string, type?: AiModelType): Promise<AiModel | null> {
  const models = await em.find(AiModel, { aiVendor: vendor.trim().toUpperCase(), externalId, ...(type && { type }) });
  models.sort((a, b) => AI_MODEL_TYPES.indexOf(a.type) - AI_MODEL_TYPES.indexOf(b.type));
  return models[0] ?? null;
}

/**
 * Points a catalog model at another provider-side model name (`externalId`), e.g. a local Ollama or vLLM model, and
 * optionally makes it the default of its type. The admin command line's `ai-model` verb; the API stays read-only.
 */
export async function pointAiModel(em: EntityManager, id: number, change: { externalId?: string; makeDefault?: boolean }): Promise<AiModel> {
  return em.transactional(async (tx) => {
    const model = await getAiModel(tx, id);
    if (change.externalId !== undefined) {
      const taken = await tx.findOne(AiModel, { aiVendor: model.aiVendor, externalId: change.externalId, type: model.type, id: { $ne: id } });
      if (taken)
        throw new ConflictError(
          `AI model ${taken.id} "${taken.name}" already has externalId "${change.externalId}" for ${model.aiVendor} ${model.type}`,
        );
      model.externalId = change.externalId;
    }
    if (change.makeDefault && !model.isDefault) {
      if (model.deprecated) throw new ConflictError(`AI model ${id} is deprecated and cannot be the default`);
      await tx.nativeUpdate(AiModel, { type: model.type, isDefault: true }, { isDefault: false });
      model.isDefault = true;
    }
    await tx.flush();
    return model;
  });
}
