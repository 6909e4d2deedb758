import type { FieldModel, FieldTypeHandler, OptionModel } from '../types.js';
import { checkEnum, collect, fail, ok } from './common.js';

export const SELECT_MODES = ['singleSelect', 'multiSelect'] as const;

/** Message for options supplied inline on field create (as `metadata.options`, `metadata.tags`, `options`, `tags`). */
export const INLINE_OPTIONS_MESSAGE =
  'select options cannot be created inline: create the field with mode, then add each option through the options (tags) endpoint';

const isMulti = (metadata: Record<string, unknown>): boolean => metadata.mode === 'multiSelect';

/** The option named `name`: exact match first, else case-insensitive. */
export function findOption(options: readonly OptionModel[], name: string): OptionModel | undefined {
  const lower = name.toLowerCase();
  return options.find((o) => o.name === name) ?? options.find((o) => o.name.toLowerCase() === lower);
}

function optionIds(value: unknown, field: FieldModel): { ok: true; ids: number[] } | { ok: false; message: string } {
  let unknown: string | undefined;
  const result = collect(
    value,
    (item) => {
      if (typeof item !== 'string') return undefined;
      const option = findOption(field.options, item);
      if (!option) unknown ??= item;
      return option?.id ?? -1;
    },
    'an option name (string)',
  );
  if (!result.ok) return result;
  if (unknown !== undefined) return { ok: false, message: `unknown option "${unknown}" for field "${field.name}"` };
  return { ok: true, ids: result.items };
}

function nameOf(field: FieldModel, id: unknown): string | undefined {
  const numeric = typeof id === 'number' ? id : Number(id);
  return field.options.find((o) => o.id === numeric)?.name;
}

export const selectField: FieldTypeHandler = {
  type: 'select',
  metadataKeys: ['mode'],
  requiredMetadataKeys: ['mode'],
  defaultMetadata: { mode: 'singleSelect' },
  allowsDefault: true,
  checkMetadata: (metadata) => checkEnum(metadata, 'mode', SELECT_MODES),
  columnType: (metadata) => (isMulti(metadata) ? 'integer[]' : 'integer'),
  toDb(value, field) {
    const multi = isMulti(field.metadata);
    if (multi ? !Array.isArray(value) && typeof value !== 'string' : typeof value !== 'string') {
      return fail(multi ? 'expected an array of option names' : 'expected an option name (string)');
    }
    const result = optionIds(value, field);
    if (!result.ok) return fail(result.message);
    return ok(multi ? result.ids : result.ids[0]);
  },
  fromDb(raw, field) {
    if (!isMulti(field.metadata)) return raw === null || raw === undefined ? null : (nameOf(field, raw) ?? null);
    if (!Array.isArray(raw)) return [];
    return raw.map((id) => nameOf(field, id)).filter((name): name is string => name !== undefined);
  },
};
