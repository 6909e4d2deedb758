/**
 * The output type of a formula: `numberConfig`, `dateConfig` or `stringConfig` shape the expression's value into
 * a number, a date or text (SPEC.md, Field). A number from text that is not a number is null, never an error.
 */
import type { FormulaContext } from './formula-scope.js';
import { asText, textToNumber, typed, type Typed } from './formula-sql.js';

const CONFIGS = ['numberConfig', 'dateConfig', 'stringConfig'] as const;

export function shapeOutput(c: FormulaContext, value: Typed, metadata: Record<string, unknown>, path: string): Typed | null {
  const given = CONFIGS.filter((key) => metadata[key] !== undefined);
  if (given.length > 1) return c.issue('invalid', `${path}.${given[1]}`, `only one of ${CONFIGS.join(', ')} may be set`);
  switch (given[0]) {
    case 'numberConfig': {
      const number = value.type === 'number' ? value : value.type === 'string' ? textToNumber(value) : null;
      if (!number)
        return c.issue('type_mismatch', `${path}.numberConfig`, `the expression is a ${value.type} value, which cannot be shown as a number`);
      const decimals = (metadata.numberConfig as Record<string, unknown>).decimals;
      return typeof decimals === 'number' ? typed('number', `round(${number.sql}, ?::integer)`, ...number.bindings, decimals) : number;
    }
    case 'dateConfig':
      if (value.type !== 'date' && value.type !== 'dateOnly') {
        return c.issue('type_mismatch', `${path}.dateConfig`, `the expression is a ${value.type} value, which cannot be shown as a date`);
      }
      return value;
    case 'stringConfig':
      return asText(value);
    default:
      return value;
  }
}
