import type { FieldTypeHandler, Issue } from '../types.js';
import { checkBoolean, checkPositiveInteger, collect, fail, invalid, ok } from './common.js';

const fileId = (item: unknown): string | undefined => (typeof item === 'string' && item.trim() !== '' ? item : undefined);

function checkFileMetadata(metadata: Record<string, unknown>): Issue[] {
  const issues = [...checkBoolean(metadata, 'showPreview'), ...checkPositiveInteger(metadata, 'maxFileSize')];
  const types = metadata.allowedFileTypes;
  if (types !== undefined && !(Array.isArray(types) && types.every((t) => typeof t === 'string' && t.trim() !== ''))) {
    issues.push(invalid('allowedFileTypes', 'allowedFileTypes must be an array of non-empty strings'));
  }
  return issues;
}

export const fileField: FieldTypeHandler = {
  type: 'file',
  metadataKeys: ['showPreview', 'allowedFileTypes', 'maxFileSize'],
  requiredMetadataKeys: [],
  defaultMetadata: { showPreview: true },
  allowsDefault: false,
  checkMetadata: checkFileMetadata,
  columnType: () => 'jsonb',
  /**
   * Takes a list of file ids. The stored form is JSON text: node-postgres would turn a JS array into a PostgreSQL
   * array literal, which a jsonb column refuses.
   */
  toDb(value) {
    if (!Array.isArray(value)) return fail('expected an array of file ids');
    const result = collect(value, fileId, 'a file id (non-empty string)');
    return result.ok ? ok(result.items) : fail(result.message);
  },
  fromDb(raw) {
    let value = raw;
    if (typeof raw === 'string') {
      try {
        value = JSON.parse(raw) as unknown;
      } catch {
        return [];
      }
    }
    return Array.isArray(value) ? value.map(String) : [];
  },
};
