/** Validation of 5-field cron expressions (minute hour day-of-month month day-of-week), as Temporal Schedules take. */
const FIELDS: { name: string; min: number; max: number; names?: string[] }[] = [
  { name: 'minute', min: 0, max: 59 },
  { name: 'hour', min: 0, max: 23 },
  { name: 'day of month', min: 1, max: 31 },
  { name: 'month', min: 1, max: 12, names: ['JAN', 'FEB', 'MAR', 'APR', 'MAY', 'JUN', 'JUL', 'AUG', 'SEP', 'OCT', 'NOV', 'DEC'] },
  { name: 'day of week', min: 0, max: 7, names: ['SUN', 'MON', 'TUE', 'WED', 'THU', 'FRI', 'SAT'] },
];

const MACROS = new Set(['@yearly', '@annually', '@monthly', '@weekly', '@daily', '@midnight', '@hourly']);

function value(text: string, field: (typeof FIELDS)[number]): number | null {
  const named = field.names?.indexOf(text.toUpperCase()) ?? -1;
  if (named >= 0) return named + (field.name === 'month' ? 1 : 0);
  if (!/^\d+$/.test(text)) return null;
  const n = Number(text);
  return n >= field.min && n <= field.max ? n : null;
}

function validPart(part: string, field: (typeof FIELDS)[number]): boolean {
  const [range, step, extra] = part.split('/');
  if (extra !== undefined || range === undefined || range === '') return false;
  if (step !== undefined && !(/^\d+$/.test(step) && Number(step) > 0)) return false;
  if (range === '*' || (range === '?' && (field.name === 'day of month' || field.name === 'day of week'))) return true;
  const [from, to, more] = range.split('-');
  if (more !== undefined) return false;
  const a = value(from!, field);
  if (a === null) return false;
  if (to === undefined) return true;
  const b = value(to, field);
  return b !== null && a <= b;
}

/** Null when valid, else a message naming the faulty field. */
export function cronProblem(expression: unknown): string | null {
  if (typeof expression !== 'string' || !expression.trim()) return 'must be a cron expression such as "0 9 * * MON-FRI"';
  const text = expression.trim();
  if (MACROS.has(text.toLowerCase())) return null;
  const parts = text.split(/\s+/);
  if (parts.length !== 5) return `must have 5 fields (minute hour day-of-month month day-of-week), got ${parts.length}`;
  for (const [i, part] of parts.entries()) {
    const field = FIELDS[i]!;
    if (!part.split(',').every((p) => validPart(p, field))) return `invalid ${field.name} field "${part}"`;
  }
  return null;
}
