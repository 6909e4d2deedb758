import type { FieldTypeHandler, Issue } from '../types.js';
import { checkBoolean, describe, fail, invalid, isHttpUrl, ok, quoteList } from './common.js';

export const STRING_FORMATS = ['text', 'email', 'url', 'phone_number'] as const;

const EMAIL = /^[A-Za-z0-9.!#$%&'*+/=?^_`{|}~-]+@[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)+$/;
const PHONE = /^\+?[0-9 ().-]+$/;

/** Checks a string `format` (also used by formula `stringConfig`). */
export function checkStringFormat(value: unknown, key = 'format'): Issue[] {
  if (typeof value === 'string' && (STRING_FORMATS as readonly string[]).includes(value)) return [];
  if (value === 'composedField') {
    return [invalid(key, `format "composedField" is internal-only and cannot be used; use one of ${quoteList(STRING_FORMATS)}`)];
  }
  return [invalid(key, `format must be one of ${quoteList(STRING_FORMATS)}; got ${describe(value)}`)];
}

function formatError(format: unknown, value: string): string | undefined {
  switch (format) {
    case 'email':
      return EMAIL.test(value) ? undefined : `expected an email address; got ${describe(value)}`;
    case 'url':
      return isHttpUrl(value) ? undefined : `expected an http(s) URL; got ${describe(value)}`;
    case 'phone_number': {
      const digits = value.replace(/\D/g, '').length;
      return PHONE.test(value) && digits >= 7 && digits <= 15
        ? undefined
        : `expected a phone number (optional leading +, 7 to 15 digits); got ${describe(value)}`;
    }
    default:
      return undefined;
  }
}

export const stringField: FieldTypeHandler = {
  type: 'string',
  metadataKeys: ['format', 'extendedField'],
  requiredMetadataKeys: ['format'],
  defaultMetadata: { format: 'text', extendedField: false },
  allowsDefault: true,
  checkMetadata: (metadata) => [...checkStringFormat(metadata.format), ...checkBoolean(metadata, 'extendedField')],
  columnType: () => 'text',
  toDb(value, field) {
    if (typeof value !== 'string') return fail(`expected a string; got ${describe(value)}`);
    const error = formatError(field.metadata.format, value);
    return error ? fail(error) : ok(value);
  },
  fromDb: (raw) => (raw === null || raw === undefined ? null : String(raw)),
  promotedKeys: (metadata) => (metadata.extendedField === true ? { extended_field: true } : {}),
};
