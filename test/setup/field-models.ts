/** Field models for pure tests of the data plane (field types, query compiler). */
import type { FieldModel, FieldType } from '../../db/tables/types.js';

export function fieldModel(
  id: number,
  name: string,
  type: FieldType,
  metadata: Record<string, unknown> = {},
  extra: Partial<FieldModel> = {},
): FieldModel {
  return {
    id,
    name,
    type,
    metadata,
    column: type === 'formula' ? null : `f_${id}`,
    linkTable: null,
    required: false,
    unique: false,
    defaultValue: null,
    readOnly: false,
    options: [],
    ...extra,
  };
}
