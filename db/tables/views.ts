/** Read representations of data-plane metadata, as the API returns them. */
import type { DataField } from './data-field.entity.js';
import type { DataTable } from './data-table.entity.js';
import type { DataView } from './data-view.entity.js';
import type { RecordType } from './record-type.entity.js';
import { promotedKeys } from './field-types/values.js';
import type { FieldModel, OptionModel } from './types.js';

export function optionView(option: OptionModel, fieldId: number) {
  return { id: option.id, fieldId, name: option.name, color: option.color, order: option.order };
}

export function fieldView(entity: DataField, model: FieldModel) {
  return {
    id: entity.id,
    name: entity.name,
    type: entity.type,
    metadata: entity.metadata,
    required: entity.required,
    unique: entity.unique,
    defaultValue: entity.defaultValue ?? null,
    readOnly: model.readOnly,
    isSystem: entity.isSystem,
    record_type_id: entity.recordType ? entity.recordType.id : null,
    order: entity.position,
    ...(entity.type === 'select' ? { options: model.options.map((o) => optionView(o, entity.id)) } : {}),
    ...promotedKeys(model),
    createdAt: entity.createdAt.toISOString(),
    updatedAt: entity.updatedAt.toISOString(),
  };
}

export function recordTypeView(recordType: RecordType, fieldIds: number[]) {
  return {
    id: recordType.id,
    name: recordType.name,
    description: recordType.description ?? null,
    isDefault: recordType.isDefault,
    order: recordType.position,
    fieldIds,
    createdAt: recordType.createdAt.toISOString(),
    updatedAt: recordType.updatedAt.toISOString(),
  };
}

export function viewView(view: DataView) {
  return {
    id: view.id,
    name: view.name,
    recordTypeId: view.recordType ? view.recordType.id : null,
    filter: view.filter ?? null,
    sort: view.sort,
    visibleFieldIds: view.visibleFieldIds,
    order: view.position,
    createdAt: view.createdAt.toISOString(),
    updatedAt: view.updatedAt.toISOString(),
  };
}

export function tableSummary(table: DataTable) {
  return {
    id: table.id,
    name: table.name,
    displayName: table.displayName,
    emoji: table.emoji ?? null,
    color: table.color ?? null,
    description: table.description ?? null,
    kind: table.kind === 'OBJECT' ? 'object' : 'table',
    isSystem: table.isSystem,
    createdAt: table.createdAt.toISOString(),
    updatedAt: table.updatedAt.toISOString(),
  };
}
