import { EntitySchema, type Opt } from '@mikro-orm/core';

/**
 * The recorded outcome of one side-effecting node execution, keyed by the execution (run, step), so a retried
 * activity answers what its first attempt did instead of doing it again. Written in the transaction of the effect.
 */
export class NodeEffect {
  executionKey!: string;
  output?: unknown;
  createdAt: Opt<Date> = new Date();
}

export const NodeEffectSchema = new EntitySchema<NodeEffect>({
  class: NodeEffect,
  tableName: 'node_effects',
  indexes: [{ name: 'node_effects_created_at_index', properties: ['createdAt'] }],
  properties: {
    executionKey: { type: 'text', primary: true },
    output: { type: 'json', columnType: 'jsonb', nullable: true },
    createdAt: { type: 'Date', columnType: 'timestamptz', onCreate: () => new Date() },
  },
});
