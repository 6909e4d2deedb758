import type { FieldTypeHandler } from '../types.js';
import { checkEnum, checkPositiveInteger, collect, describe, fail, ok } from './common.js';

export const RELATION_MODES = ['single', 'multi'] as const;

const ROW_ID = /^[0-9a-f]{24}$/i;
const rowId = (item: unknown): string | undefined => (typeof item === 'string' && ROW_ID.test(item) ? item.toLowerCase() : undefined);

export const relationField: FieldTypeHandler = {
  type: 'relation',
  metadataKeys: ['mode', 'relatedTableId', 'displayColumn'],
  requiredMetadataKeys: ['mode', 'relatedTableId', 'displayColumn'],
  defaultMetadata: null,
  allowsDefault: false,
  checkMetadata: (metadata) => [
    ...checkEnum(metadata, 'mode', RELATION_MODES),
    ...checkPositiveInteger(metadata, 'relatedTableId'),
    ...checkPositiveInteger(metadata, 'displayColumn'),
  ],
  columnType: (metadata) => (metadata.mode === 'multi' ? null : 'char(24)'),
  /** Single takes one row id (or a list of at most one); multi takes a list of row ids (or one id). */
  toDb(value, field) {
    const result = collect(value, rowId, 'a row id (24 hexadecimal characters)');
    if (!result.ok) return fail(result.message);
    if (field.metadata.mode === 'multi') return ok(result.items);
    if (result.items.length > 1) return fail(`expected one row id; got ${describe(value)}`);
    return ok(result.items[0] ?? null);
  },
  fromDb(raw, field) {
    if (field.metadata.mode === 'multi') return Array.isArray(raw) ? raw.map((id) => String(id).trim()) : [];
    return raw === null || raw === undefined ? null : String(raw).trim();
  },
};
