/** Builders of formula expressions and readers of row values shared by the formula tests. */
import { ok, type Client } from './tables.helpers.js';

export const field = (name: string, fallbackValue?: string | number) => ({
  type: 'field',
  field: name,
  ...(fallbackValue !== undefined && { fallbackValue }),
});
export const constant = (value: string | number) => ({ type: 'constant', value });
export const op = (operator: string, ...args: unknown[]) => ({ type: 'operator', operator, arguments: args });
export const time = (operator: string, unit: string, a: unknown, b: unknown) => ({ type: 'timeOperator', operator, unit, arguments: [a, b] });
export const formula = (name: string, expression: unknown, extra: Record<string, unknown> = {}) => ({
  name,
  type: 'formula',
  metadata: { expression, ...extra },
});

/** The `data` of every row, in creation order (or as `body` sorts them). */
export async function values(api: Client, base: string, body: Record<string, unknown> = {}): Promise<Record<string, any>[]> {
  return ok(await api.post(`${base}/rows/list`, { limit: 500, ...body })).agentry.map((r: { data: Record<string, unknown> }) => r.data);
}
