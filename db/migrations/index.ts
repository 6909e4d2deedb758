/** Every migration in order. Listed explicitly so migrations run the same from TypeScript sources and bundles. */
import { Migration20261121155308_foundation } from './Migration20261121155308_foundation.js';

export const migrationsList = [{ name: 'Migration20261121155308_foundation', class: Migration20261121155308_foundation }];
