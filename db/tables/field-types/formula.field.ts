import type { FieldTypeHandler, Issue } from '../types.js';
import { checkExpressionShape } from '../formulas/formula-nodes.js';
import { checkObject, fail, isPlainObject } from './common.js';
import { dateField } from './date.field.js';
import { numberField } from './number.field.js';
import { checkStringFormat } from './string.field.js';

/** Output configs and the field type whose metadata keys and checks each takes. */
const CONFIG_TYPES = { numberConfig: numberField, dateConfig: dateField } as const;

function checkConfig(metadata: Record<string, unknown>, key: 'numberConfig' | 'dateConfig' | 'stringConfig'): Issue[] {
  const config = metadata[key];
  if (!isPlainObject(config)) return [];
  const allowed = key === 'stringConfig' ? ['format', 'extendedField'] : CONFIG_TYPES[key].metadataKeys;
  const issues: Issue[] = Object.keys(config)
    .filter((k) => !allowed.includes(k))
    .map((k) => ({ code: 'unknown_field', path: `metadata.${key}.${k}`, message: `is not a key of ${key} (it has ${allowed.join(', ')})` }));
  if (key === 'stringConfig') {
    if (config.format !== undefined) issues.push(...checkStringFormat(config.format, `${key}.format`));
    if (config.extendedField !== undefined && typeof config.extendedField !== 'boolean') {
      issues.push({ code: 'invalid', path: `metadata.${key}.extendedField`, message: 'must be a boolean' });
    }
    return issues;
  }
  // The number and date checks name their keys `metadata.<key>`: re-root them under the config.
  return [...issues, ...CONFIG_TYPES[key].checkMetadata(config).map((i) => ({ ...i, path: i.path.replace(/^metadata\./, `metadata.${key}.`) }))];
}

/** Shape checks that need no other field; references and types are checked when the formula is compiled. */
function checkFormulaMetadata(metadata: Record<string, unknown>): Issue[] {
  const issues = ['expression', 'applyIf', 'numberConfig', 'dateConfig', 'stringConfig'].flatMap((key) => checkObject(metadata, key));
  if (issues.length) return issues;
  return [
    ...checkExpressionShape(metadata.expression, 'metadata.expression'),
    ...checkConfig(metadata, 'numberConfig'),
    ...checkConfig(metadata, 'dateConfig'),
    ...checkConfig(metadata, 'stringConfig'),
  ];
}

/** Formula values are computed in SQL by the query layer (`db/tables/formulas/`); the API reads them like columns. */
export const formulaField: FieldTypeHandler = {
  type: 'formula',
  metadataKeys: ['expression', 'applyIf', 'numberConfig', 'dateConfig', 'stringConfig'],
  requiredMetadataKeys: ['expression'],
  defaultMetadata: null,
  allowsDefault: false,
  checkMetadata: checkFormulaMetadata,
  columnType: () => null,
  toDb: () => fail('formula fields are read-only'),
  // Values arrive through the handler of the formula's type (field-types/values.ts); this is the text fallback.
  fromDb: (raw) => (raw === null || raw === undefined ? null : String(raw)),
};
