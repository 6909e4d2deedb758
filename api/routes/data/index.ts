/** Every Objects and Tables endpoint. */
import { registerSharedSchema, type JsonSchema } from '../../validation.js';
import type { RouteRegistry } from '../../route-registry.js';
import { FieldCreateSchema, RowBodySchema } from '../../schemas/data.schema.js';
import { QueryFilterSchema, QuerySortSchema } from '../../../db/tables/query/filter.schema.js';
import type { FileStore } from '../../../db/tables/files/file-store.js';
import { exportRoutes } from './export.routes.js';
import { fieldRoutes } from './fields.routes.js';
import { recordActivityRoutes } from './record-activities.routes.js';
import { recordTaskRoutes } from './record-tasks.routes.js';
import { recordFileRoutes } from './record-files.routes.js';
import { recordTypeRoutes } from './record-types.routes.js';
import { relationRoutes } from './relations.routes.js';
import { rowRoutes } from './rows.routes.js';
import { OBJECTS, TABLES } from './surface.js';
import { tableRoutes } from './tables.routes.js';
import { viewRoutes } from './views.routes.js';

/** `files`: where the bytes of record files are stored. */
export function dataRoutes(api: RouteRegistry, files: FileStore): void {
  for (const schema of [QueryFilterSchema, QuerySortSchema, FieldCreateSchema, RowBodySchema] as JsonSchema[]) registerSharedSchema(schema);
  // Fixed paths before parameterized ones of the same shape.
  recordTypeRoutes(api);
  relationRoutes(api);
  recordActivityRoutes(api);
  recordTaskRoutes(api);
  recordFileRoutes(api, files);
  for (const surface of [OBJECTS, TABLES]) {
    tableRoutes(api, surface, files);
    fieldRoutes(api, surface);
    rowRoutes(api, surface, files);
    viewRoutes(api, surface);
    exportRoutes(api, surface);
  }
}
