import type { FieldTypeHandler, Issue } from '../types.js';
import { checkEnum, describe, fail, invalid, ok } from './common.js';

export const NUMBER_FORMATS = ['integer', 'decimal', 'percent', 'currency'] as const;

/** Rounds half away from zero to `decimals` places, shifting through the decimal exponent (1.005 → 1.01). */
export function roundTo(value: number, decimals: number): number {
  // Fast path: the value already has at most `decimals` places (the usual case).
  const scaled = value * 10 ** decimals;
  if (Math.abs(scaled) < 2 ** 52 && Math.abs(scaled - Math.round(scaled)) < 1e-7) return Number(Math.round(scaled) / 10 ** decimals) || 0;
  const shift = (n: number, by: number): number => {
    const [mantissa, exponent = '0'] = String(n).split('e');
    return Number(`${mantissa}e${Number(exponent) + by}`);
  };
  const rounded = Math.sign(value) * shift(Math.round(shift(Math.abs(value), decimals)), -decimals);
  return rounded === 0 ? 0 : rounded;
}

function checkNumberMetadata(metadata: Record<string, unknown>): Issue[] {
  const issues = checkEnum(metadata, 'format', NUMBER_FORMATS);
  const { decimals, currency } = metadata;
  if (decimals !== undefined && !(Number.isInteger(decimals) && (decimals as number) >= 0 && (decimals as number) <= 10)) {
    issues.push(invalid('decimals', 'decimals must be an integer from 0 to 10'));
  }
  if (currency !== undefined && !(typeof currency === 'string' && /^[A-Z]{3}$/.test(currency))) {
    issues.push(invalid('currency', 'currency must be a 3-letter uppercase ISO 4217 code such as "USD"'));
  }
  return issues;
}

export const numberField: FieldTypeHandler = {
  type: 'number',
  metadataKeys: ['format', 'decimals', 'currency'],
  requiredMetadataKeys: ['format'],
  defaultMetadata: { format: 'decimal' },
  allowsDefault: true,
  checkMetadata: checkNumberMetadata,
  columnType: () => 'numeric',
  toDb(value, field) {
    if (typeof value !== 'number' || !Number.isFinite(value)) return fail(`expected a finite number; got ${describe(value)}`);
    if (field.metadata.format === 'integer' && !Number.isInteger(value)) {
      return fail(`expected an integer; got ${describe(value)}`);
    }
    const decimals = field.metadata.decimals;
    return ok(typeof decimals === 'number' ? roundTo(value, decimals) : value);
  },
  fromDb(raw) {
    if (raw === null || raw === undefined) return null;
    const value = typeof raw === 'number' ? raw : Number(raw);
    return Number.isNaN(value) ? null : value;
  },
};
