/** Objects and Tables expose parallel endpoint sets; a surface names what differs between them. */
import type { EntityManager } from '@mikro-orm/postgresql';
import { findTable } from '../../../db/tables/table-lookups.js';
import type { TableKind } from '../../../db/tables/types.js';

export interface DataSurface {
  kind: TableKind;
  /** `/objects` or `/tables` */
  base: string;
  /** Segment of the option endpoints: `options` (Objects) or `tags` (Tables). */
  optionsSegment: string;
  tag: string;
  /** Words of its operation ids: `getObject`, `listRecords` / `getTable`, `listTableRows`, `listTableFieldTags`. */
  noun: 'Object' | 'Table';
  row: 'Record' | 'TableRow';
  rows: 'Records' | 'TableRows';
  option: 'Option' | 'Tag';
}

export const OBJECTS: DataSurface = {
  kind: 'OBJECT',
  base: '/objects',
  optionsSegment: 'options',
  tag: 'Objects',
  noun: 'Object',
  row: 'Record',
  rows: 'Records',
  option: 'Option',
};
export const TABLES: DataSurface = {
  kind: 'TABLE',
  base: '/tables',
  optionsSegment: 'tags',
  tag: 'Tables',
  noun: 'Table',
  row: 'TableRow',
  rows: 'TableRows',
  option: 'Tag',
};

export const nameParam = { type: 'object', properties: { name: { type: 'string', minLength: 1, maxLength: 63 } }, required: ['name'] };

/** Path parameters schema: `name` plus the given integer ids. */
export function paramsWith(...ids: string[]) {
  return {
    type: 'object',
    required: ['name', ...ids],
    properties: { ...nameParam.properties, ...Object.fromEntries(ids.map((id) => [id, { type: 'integer', minimum: 1 }])) },
  };
}

/** Path parameters of a record's sub-resources (activities, tasks, files): `name` and `rowId`. */
export const recordParams = {
  type: 'object',
  required: ['name', 'rowId'],
  properties: { ...nameParam.properties, rowId: { type: 'string', minLength: 1, maxLength: 64 } },
};

/** Path parameters of a record's sub-resources, and the page query of their lists. */
export type RecordParams = { name: string; rowId: string };
export type PageQuery = { limit: number; cursor?: string };

/** The account's Object named in the path (activities, tasks and files exist for Objects only). */
export const findObject = (em: EntityManager, accountId: number, name: string) => findTable(em, accountId, 'OBJECT', name);

/**
 * The lock of the account's Objects' and Tables' metadata (tables, fields, options, record types, views and their
 * aggregations): see `RouteSpec.lock`. One lock for all of them, since a relation field changes two tables and view
 * and record-type positions are renumbered across a table; metadata edits are rare and brief, row writes never take it.
 */
export const schemaLock = (): string => 'data-schema';
