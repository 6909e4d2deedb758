import type { FieldTypeHandler } from '../types.js';
import { describe, fail, isHttpUrl, ok } from './common.js';

export const avatarField: FieldTypeHandler = {
  type: 'avatar',
  metadataKeys: [],
  requiredMetadataKeys: [],
  defaultMetadata: {},
  allowsDefault: false,
  checkMetadata: () => [],
  columnType: () => 'text',
  toDb: (value) => (typeof value === 'string' && isHttpUrl(value) ? ok(value) : fail(`expected an http(s) image URL; got ${describe(value)}`)),
  fromDb: (raw) => (raw === null || raw === undefined ? null : String(raw)),
};
