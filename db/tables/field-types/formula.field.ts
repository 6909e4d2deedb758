import type { FieldTypeHandler, Issue } from '../types.js';
import { checkObject, fail, isPlainObject } from './common.js';
import { checkStringFormat } from './string.field.js';

function checkFormulaMetadata(metadata: Record<string, unknown>): Issue[] {
  const issues = ['expression', 'applyIf', 'numberConfig', 'dateConfig', 'stringConfig'].flatMap((key) =>
    checkObject(metadata, key),
  );
  const { stringConfig } = metadata;
  if (isPlainObject(stringConfig) && stringConfig.format !== undefined) {
    issues.push(...checkStringFormat(stringConfig.format, 'stringConfig.format'));
  }
  return issues;
}

/** Formula values are computed in SQL by the query layer; the expression itself is checked there too. */
export const formulaField: FieldTypeHandler = {
  type: 'formula',
  metadataKeys: ['expression', 'applyIf', 'numberConfig', 'dateConfig', 'stringConfig'],
  requiredMetadataKeys: ['expression'],
  defaultMetadata: null,
  allowsDefault: false,
  checkMetadata: checkFormulaMetadata,
  columnType: () => null,
  toDb: () => fail('formula fields are read-only'),
  fromDb(raw, field) {
    if (raw === null || raw === undefined) return null;
    if (raw instanceof Date) return raw.toISOString();
    if (typeof raw === 'string' && field.metadata.numberConfig !== undefined && raw.trim() !== '' && !Number.isNaN(Number(raw))) {
      return Number(raw);
    }
    return raw;
  },
};
