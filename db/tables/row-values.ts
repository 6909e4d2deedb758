/**
 * Row values between their API form (keyed by field name or id) and their stored form (one column per field,
 * link tables for multi relations). Pure: the references to other rows and users are returned for the caller
 * to check against the database.
 */
import { BadRequestError, type Issue } from '../../lib/errors.js';
import { pgTimestampToIso } from './field-types/date.field.js';
import { fromDbValue, isListValued, toDbValue } from './field-types/values.js';
import type { FieldModel, WriteContext } from './types.js';

/** A row as the API returns it. */
export interface RowView {
  id: string;
  recordTypeId: number | null;
  createdAt: string;
  updatedAt: string;
  /** Values keyed by field name. */
  data: Record<string, unknown>;
}

/** Values of one row ready to store. */
export interface PreparedRow {
  /** column → stored value */
  columns: Record<string, unknown>;
  /** multi relation field id → target ids (replaces the row's links) */
  links: Map<number, string[]>;
  /** relation field id → every target id referenced (to check existence) */
  relationRefs: Map<number, Set<string>>;
  /** entityRelation (User) ids referenced */
  userRefs: Set<number>;
  /** names of the fields the input set */
  touched: string[];
}

/** Lookup of fields by exact name, lowercased name and id, built once per field list. */
const indexes = new WeakMap<FieldModel[], Map<string, FieldModel>>();

function indexOf(fields: FieldModel[]): Map<string, FieldModel> {
  let index = indexes.get(fields);
  if (!index) {
    index = new Map();
    for (const f of fields) index.set(`#${f.id}`, f);
    for (const f of fields) if (!index.has(`~${f.name.toLowerCase()}`)) index.set(`~${f.name.toLowerCase()}`, f);
    for (const f of fields) index.set(`=${f.name}`, f);
    indexes.set(fields, index);
  }
  return index;
}

/** The field a body key names: its name (exactly, else case-insensitively) or its numeric id. */
export function resolveField(fields: FieldModel[], key: string): FieldModel | undefined {
  const index = indexOf(fields);
  if (/^\d+$/.test(key)) return index.get(`#${key}`);
  return index.get(`=${key}`) ?? index.get(`~${key.toLowerCase()}`);
}

function isBlank(value: unknown): boolean {
  return value === null || value === undefined || (Array.isArray(value) && value.length === 0);
}

// Shared empty collections: most rows reference nothing, and bulk writes prepare thousands of rows.
const NO_LINKS: Map<number, string[]> = new Map();
const NO_REFS: Map<number, Set<string>> = new Map();
const NO_USERS: Set<number> = new Set();

function remember(prepared: PreparedRow, field: FieldModel, stored: unknown): void {
  if (field.type === 'relation' && stored !== null) {
    const ids = Array.isArray(stored) ? (stored as string[]) : [stored as string];
    if (prepared.relationRefs === NO_REFS) prepared.relationRefs = new Map();
    const refs = prepared.relationRefs.get(field.id) ?? new Set<string>();
    ids.forEach((id) => refs.add(id));
    prepared.relationRefs.set(field.id, refs);
  }
  if (field.type === 'entityRelation' && field.metadata.entityModel === 'User' && stored !== null) {
    if (prepared.userRefs === NO_USERS) prepared.userRefs = new Set();
    (Array.isArray(stored) ? (stored as number[]) : [stored as number]).forEach((id) => prepared.userRefs.add(id));
  }
}

function store(prepared: PreparedRow, field: FieldModel, stored: unknown): void {
  remember(prepared, field, stored);
  if (field.linkTable) {
    if (prepared.links === NO_LINKS) prepared.links = new Map();
    prepared.links.set(field.id, (stored as string[] | null) ?? []);
  } else if (field.column) prepared.columns[field.column] = stored;
}

/**
 * Validates and converts the values of one row. On create, missing fields take their default and required
 * fields must end up with a value; on update, only the given fields change. Throws 400 listing every problem,
 * with paths under `path` (e.g. `rows[3].data`).
 */
export function prepareRow(
  fields: FieldModel[],
  values: Record<string, unknown>,
  mode: 'create' | 'update',
  ctx: WriteContext,
  path = 'data',
): PreparedRow {
  const prepared: PreparedRow = { columns: {}, links: NO_LINKS, relationRefs: NO_REFS, userRefs: NO_USERS, touched: [] };
  const issues: Issue[] = [];
  const given = new Set<number>();
  for (const [key, value] of Object.entries(values)) {
    const field = resolveField(fields, key);
    if (!field) {
      issues.push({ code: 'unknown_field', path: `${path}.${key}`, message: 'is not a field of this table' });
      continue;
    }
    if (given.has(field.id)) {
      issues.push({ code: 'invalid', path: `${path}.${key}`, message: `names the field "${field.name}" a second time` });
      continue;
    }
    given.add(field.id);
    if (field.readOnly) {
      issues.push({ code: 'invalid', path: `${path}.${key}`, message: `"${field.name}" is read-only` });
      continue;
    }
    if (isBlank(value) || (value === '' && field.type !== 'string')) {
      if (field.required) issues.push({ code: 'required', path: `${path}.${key}`, message: `"${field.name}" is required` });
      else store(prepared, field, field.linkTable ? [] : null);
      prepared.touched.push(field.name);
      continue;
    }
    const converted = toDbValue(field, value, ctx);
    if (!converted.ok) issues.push({ code: 'invalid', path: `${path}.${key}`, message: converted.message });
    else store(prepared, field, converted.value);
    prepared.touched.push(field.name);
  }
  if (mode === 'create') {
    for (const field of fields) {
      if (given.has(field.id) || field.readOnly) continue;
      if (field.defaultValue !== null && field.defaultValue !== undefined) {
        const converted = toDbValue(field, field.defaultValue, ctx);
        if (converted.ok) store(prepared, field, converted.value);
        else issues.push({ code: 'invalid', path: `${path}.${field.name}`, message: `default value: ${converted.message}` });
      } else if (field.required) {
        issues.push({ code: 'required', path: `${path}.${field.name}`, message: `"${field.name}" is required` });
      }
    }
  }
  if (issues.length) throw new BadRequestError(`Invalid values: ${issues[0]!.path} ${issues[0]!.message}`, issues);
  return prepared;
}

/** The API form of a stored row; `links` holds the targets of each multi relation for this row. */
export function rowView(fields: FieldModel[], raw: Record<string, unknown>, links: Map<number, string[]>): RowView {
  const data: Record<string, unknown> = {};
  for (const field of fields) {
    if (field.linkTable) data[field.name] = links.get(field.id) ?? [];
    else if (!field.column) data[field.name] = null;
    else if (raw[field.column] === null || raw[field.column] === undefined) data[field.name] = isListValued(field) ? [] : null;
    else data[field.name] = fromDbValue(field, raw[field.column]);
  }
  return {
    id: String(raw.id),
    recordTypeId: (raw.record_type_id as number | null) ?? null,
    createdAt: isoOf(raw.created_at),
    updatedAt: isoOf(raw.updated_at),
    data,
  };
}

/** Timestamps arrive as PostgreSQL text from the database and as ISO strings from a write that just happened. */
function isoOf(value: unknown): string {
  if (typeof value === 'string' && value.endsWith('Z') && value.includes('T')) return value;
  return (typeof value === 'string' && pgTimestampToIso(value)) || new Date(value as string | Date).toISOString();
}
