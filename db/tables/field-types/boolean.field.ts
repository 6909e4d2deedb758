import type { FieldTypeHandler } from '../types.js';
import { describe, fail, ok } from './common.js';

export const booleanField: FieldTypeHandler = {
  type: 'boolean',
  metadataKeys: [],
  requiredMetadataKeys: [],
  defaultMetadata: {},
  allowsDefault: true,
  checkMetadata: () => [],
  columnType: () => 'boolean',
  toDb: (value) => (typeof value === 'boolean' ? ok(value) : fail(`expected true or false; got ${describe(value)}`)),
  fromDb(raw) {
    if (raw === null || raw === undefined) return null;
    if (typeof raw === 'boolean') return raw;
    return raw === 't' || raw === 'true';
  },
};
