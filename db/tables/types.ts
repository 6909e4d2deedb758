/**
 * The data plane's shared vocabulary: what a field of an Object or Table is, as the field-type handlers, the
 * query compiler and the row services see it. Pure types; no I/O.
 *
 * Storage (DESIGN.md): the rows of each Object or Table live in their own PostgreSQL table
 * `data.rows_<tableId>` with the system columns below and one typed column per field (`f_<fieldId>`);
 * multi relations live in link tables `data.links_<fieldId>(source_id, target_id)`.
 */
import type { Issue } from '../../lib/errors.js';

export type TableKind = 'OBJECT' | 'TABLE';

export const FIELD_TYPES = [
  'string',
  'number',
  'boolean',
  'date',
  'dateOnly',
  'select',
  'relation',
  'entityRelation',
  'file',
  'avatar',
  'formula',
] as const;
export type FieldType = (typeof FIELD_TYPES)[number];

/** PostgreSQL schema that holds every physical row table and link table. */
export const DATA_SCHEMA = 'data';

/** System columns of every row table, in API form → column. */
export const SYSTEM_COLUMNS = {
  id: 'id', // char(24), 24-hex object identifier, time-ordered
  recordTypeId: 'record_type_id', // integer, null for Tables
  createdAt: 'created_at', // timestamptz
  updatedAt: 'updated_at', // timestamptz
} as const;
export type SystemField = keyof typeof SYSTEM_COLUMNS;

export interface OptionModel {
  id: number;
  name: string;
  color: string | null;
  order: number;
}

/** A field as the data plane sees it. */
export interface FieldModel {
  id: number;
  /** Label shown to users; unique per table, case-insensitively. Filters and row bodies may use it as key. */
  name: string;
  type: FieldType;
  /** Validated metadata with defaults filled in (camelCase keys as in SPEC.md). */
  metadata: Record<string, unknown>;
  /** Physical column in the row table (`f_<id>`), or null when the values live elsewhere (multi relation). */
  column: string | null;
  /** Link table (`links_<id>`) of a multi relation, else null. */
  linkTable: string | null;
  required: boolean;
  unique: boolean;
  /** Default in API form (for select: the option name; for dates also NOW / TODAY). */
  defaultValue: unknown;
  readOnly: boolean;
  /** Options of a select field, in order; empty for other types. */
  options: OptionModel[];
  /**
   * Formula fields read through a query's row source (formulas/formula-source.ts): the type of the computed
   * value, which filters, sorts and aggregations treat the column as. Absent on stored fields.
   */
  formulaType?: 'number' | 'string' | 'boolean' | 'date' | 'dateOnly';
}

/** Result of converting one API value for storage. */
export type ToDbResult = { ok: true; value: unknown } | { ok: false; message: string };

/** What converting a value may need beyond the field itself. */
export interface WriteContext {
  /** Time of the write; NOW and TODAY resolve against it. */
  now: Date;
}

/**
 * Behaviour of one field type. One file per type under `field-types/`, one registry line in
 * `field-types/index.ts`.
 */
export interface FieldTypeHandler {
  type: FieldType;
  /** Metadata keys this type accepts (camelCase, as in SPEC.md). */
  metadataKeys: readonly string[];
  /** Keys that must be present whenever `metadata` is supplied. */
  requiredMetadataKeys: readonly string[];
  /** Metadata used when the request omits `metadata`; null when the type cannot be created without it. */
  defaultMetadata: Record<string, unknown> | null;
  /** Whether `defaultValue` is allowed (false for relation, entityRelation, file, avatar). */
  allowsDefault: boolean;
  /**
   * Type-specific checks of metadata whose keys are already known to be allowed and complete; returns issues
   * with paths like `metadata.format`. Cross-resource checks (relatedTableId exists, …) are the service's.
   */
  checkMetadata(metadata: Record<string, unknown>): Issue[];
  /** PostgreSQL column type, or null when the values are not stored in the row table. */
  columnType(metadata: Record<string, unknown>): string | null;
  /** Validates and converts an API value (never null/undefined: callers handle those) to its stored form. */
  toDb(value: unknown, field: FieldModel, ctx: WriteContext): ToDbResult;
  /** Converts a stored value (as node-postgres returns it) to its API form. */
  fromDb(raw: unknown, field: FieldModel): unknown;
  /** Keys added to the field's read representation (SPEC.md: timezone, time_format, extended_field, …). */
  promotedKeys?(metadata: Record<string, unknown>): Record<string, unknown>;
}

export type { Issue };
