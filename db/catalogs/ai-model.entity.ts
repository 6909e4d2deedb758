import { EntitySchema, type Opt } from '@mikro-orm/core';

export const AI_MODEL_TYPES = ['TEXT', 'TRANSCRIPTION', 'FILE_ANALYSIS', 'EMBEDDING'] as const;

/** What a model is used for: TEXT for agents and AI nodes, TRANSCRIPTION and FILE_ANALYSIS for those nodes,
 * EMBEDDING for knowledge-base retrieval. */
export type AiModelType = (typeof AI_MODEL_TYPES)[number];

/**
 * A model of the global, read-only AI catalog (not per account). Rows are seeded by migrations with negative
 * ids, the `aiModelId` nodes and agent settings refer to; exactly one model per type is the default.
 */
export class AiModel {
  id!: number;
  name!: string;
  description?: string | null;
  type!: AiModelType;
  /** Uppercase vendor code: OPENAI, ANTHROPIC, GOOGLE, … */
  aiVendor!: string;
  /** Thinking-tier model. */
  reasoningModel: Opt<boolean> = false;
  creditsPerMessage!: number;
  isDefault: Opt<boolean> = false;
  /** UI display order within the type. */
  order!: number;
  analyticsColor!: string;
  /** The provider's model id, sent as `model` together with `aiVendor`. */
  externalId!: string;
  /** Still listed, but refused by node and agent-setting validation. */
  deprecated: Opt<boolean> = false;
}

export const AiModelSchema = new EntitySchema<AiModel>({
  class: AiModel,
  tableName: 'ai_models',
  checks: [
    { name: 'ai_models_type_check', expression: "type in ('TEXT', 'TRANSCRIPTION', 'FILE_ANALYSIS', 'EMBEDDING')" },
    { name: 'ai_models_default_not_deprecated', expression: 'not (is_default and deprecated)' },
  ],
  uniques: [{ name: 'ai_models_vendor_external_id_type_unique', properties: ['aiVendor', 'externalId', 'type'] }],
  indexes: [
    {
      name: 'ai_models_one_default_per_type',
      expression: 'create unique index "ai_models_one_default_per_type" on "ai_models" ("type") where "is_default"',
    },
  ],
  properties: {
    id: { type: 'integer', primary: true, autoincrement: false },
    name: { type: 'text' },
    description: { type: 'text', nullable: true },
    type: { type: 'text' },
    aiVendor: { type: 'text' },
    reasoningModel: { type: 'boolean', default: false },
    creditsPerMessage: { type: 'integer' },
    isDefault: { type: 'boolean', default: false },
    order: { type: 'integer', fieldName: 'display_order' },
    analyticsColor: { type: 'text' },
    externalId: { type: 'text' },
    deprecated: { type: 'boolean', default: false },
  },
});
