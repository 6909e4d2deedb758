/**
 * CSV cells written by PostgreSQL: for the field types whose CSV text depends on the row alone (text, numbers,
 * booleans, dates, options), the export's SELECT itself answers the finished cell, quoted as the CSV writer
 * quotes (sheet-format.ts), so Node only joins text. The expressions reproduce export-cells.ts exactly:
 * numbers as JavaScript prints them, dates in the field's time zone with its offset, options by name.
 * Relations, users and files stay with export-cells.ts (their labels come from other tables).
 *
 * Every expression is NOT NULL text. Regular expressions avoid `?`, which knex reads as a binding.
 */
import { fragment, type SqlFragment } from '../query/fragment.js';
import type { FieldModel } from '../types.js';
import { csvField, FORMULA_LIKE as FORMULA_LIKE_JS } from './sheet-format.js';

/** JavaScript's `\s`, which the CSV writer's quoting rule uses, spelled out for PostgreSQL's regular expressions. */
const SPACE = String.raw`[ \t\n\u000b\f\r\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000\ufeff]`;
const NEEDS_QUOTES = String.raw`[",\r\n]|^${SPACE}|${SPACE}$`;
const FORMULA_LIKE = String.raw`^[=+\-@\t\r]`;
const NUMBER = String.raw`^[-+]{0,1}([0-9]+[.]{0,1}[0-9]*|[.][0-9]+)([eE][-+]{0,1}[0-9]+){0,1}$`;

/**
 * csvField of a text value: a leading apostrophe before what a spreadsheet would evaluate, quotes when needed.
 * Most values need neither, which one match tells; the rest are worked out once in a subquery.
 */
function csvText(value: string): string {
  const marked = `case when x ~ '${FORMULA_LIKE}' and x !~ '${NUMBER}' then '''' || x else x end`;
  const slow = `(select case when m ~ '${NEEDS_QUOTES}' then '"' || replace(m, '"', '""') || '"' else m end from (select ${marked} as m from (select ${value} as x) as v) as w)`;
  return `case when ${value} is null then '' when ${value} !~ '${FORMULA_LIKE}|${NEEDS_QUOTES}' then ${value} else ${slow} end`;
}

/**
 * PostgreSQL's shortest float8 text turned into JavaScript's: the same digits, but JavaScript writes plain
 * decimals from 1e-7 up to 1e21 where PostgreSQL switches to an exponent below 1e-4 and from 1e15.
 */
const JS_FROM_PG_FLOAT = `case when strpos(t, 'e') = 0 then t else (
  select case
    when e >= 21 or e <= -7 then sign || d1 || case when rest <> '' then '.' || rest else '' end || 'e' || case when e > 0 then '+' else '-' end || abs(e)
    when e >= 0 then sign || case when length(d1 || rest) <= e + 1 then d1 || rest || repeat('0', e + 1 - length(d1 || rest))
      else left(d1 || rest, e + 1) || '.' || substr(d1 || rest, e + 2) end
    else sign || '0.' || repeat('0', -e - 1) || d1 || rest end
  from (select m[1] as sign, m[2] as d1, m[3] as rest, m[4]::int as e from regexp_match(t, '^(-{0,1})([0-9])[.]{0,1}([0-9]*)e([-+][0-9]+)$') as m) as p) end`;

/**
 * Past these a value reads in JavaScript as Infinity or 0 (the halfway points 2^1024 - 2^970 and 2^-1075, rounded
 * outwards by far less than any value the API stores), and casting it to float8 fails.
 */
const DOUBLE_OVERFLOW = '1.797693134862315808e308';
const DOUBLE_UNDERFLOW = '2.470328229206232720e-324';

/**
 * A number as JavaScript prints the double it reads as (export-cells.ts reads numeric text with Number()). Between
 * 1e-4 and 1e15 both print the same shortest digits; the rest goes through JS_FROM_PG_FLOAT, past the range of
 * doubles as JavaScript reads them (Infinity, 0), and NaN as nothing (the API reads it as null).
 */
function csvNumber(value: string): string {
  return `case when ${value} is null then '' when ${value} = 0 then '0'
    when (${value} >= 0.0001 and ${value} < 999999999999999) or (${value} <= -0.0001 and ${value} > -999999999999999) then (${value})::float8::text
    when ${value} = 'NaN' then '' when ${value} >= ${DOUBLE_OVERFLOW} then 'Infinity' when ${value} <= -${DOUBLE_OVERFLOW} then '''-Infinity'
    when abs(${value}) <= ${DOUBLE_UNDERFLOW} then '0'
    else (select ${JS_FROM_PG_FLOAT} from (select (${value})::float8::text as t) as f) end`;
}

/**
 * An instant as ISO 8601 wall time of `zone` with its offset (`2024-01-15T09:30:00-05:00`), milliseconds only when
 * not zero (truncated, as the API reads them); the offset rounded to minutes as Math.round does, and written from the
 * signed minutes (-330 → -530 → -05:30). `offset 0` keeps each subquery evaluated once per row, where PostgreSQL
 * would otherwise copy its expressions into every place that names them.
 */
function csvZoned(value: string, zone: string): SqlFragment {
  const format = `case when date_trunc('milliseconds', w) <> date_trunc('second', w) then 'YYYY-MM-DD"T"HH24:MI:SS.MS' else 'YYYY-MM-DD"T"HH24:MI:SS' end`;
  const minutes = `floor(date_part('epoch', w - (${value} at time zone 'UTC')) / 60 + 0.5)::int`;
  const sql = `case when ${value} is null then '' else (select to_char(w, ${format}) || to_char((m / 60) * 100 + m % 60, 'SG00":"00')
    from (select w, ${minutes} as m from (select ${value} at time zone ?::text as w offset 0) as z offset 0) as o) end`;
  return { sql, bindings: [zone] };
}

const csvBoolean = (value: string) => `case when ${value} then 'true' when not ${value} then 'false' else '' end`;
const csvDate = (value: string) => `coalesce(to_char(${value}, 'YYYY-MM-DD'), '')`;
/** Instants of formulas read as the API answers them, in UTC. */
const csvUtc = (value: string) => `coalesce(to_char(${value} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'), '')`;

/**
 * Options by name (ids without an option left out), a multi select's names joined with ", ". One or two names, the
 * usual case, are looked up without a subquery: two names hold a comma, so they are always quoted, and only the
 * first can make the cell look like a formula. An id without an option makes the lookup null: then the subquery.
 */
function csvOptions(field: FieldModel, value: string): SqlFragment {
  const ids = field.options.map((o) => o.id);
  const names = field.options.map((o) => o.name);
  const name = (array: string, id: string) => `(${array}::text[])[array_position(?::int[], ${id})]`;
  if (field.metadata.mode !== 'multiSelect') return fragment(`coalesce(${name('?', value)}, '')`, names.map(csvField), ids);
  const quoted = names.map((n) => n.replace(/"/g, '""'));
  const first = names.map((n, i) => (FORMULA_LIKE_JS.test(n) ? `'${quoted[i]}` : quoted[i]));
  const pair = `'"' || ${name('?', `${value}[1]`)} || ', ' || ${name('?', `${value}[2]`)} || '"'`;
  const any = `(select ${csvText("string_agg(n, ', ')")} from (select ${name('?', 'o')} as n from unnest(${value}) as o) as u)`;
  return fragment(
    `coalesce(case cardinality(${value}) when 0 then '' when 1 then ${name('?', `${value}[1]`)} when 2 then ${pair} end, ${any})`,
    ...[names.map(csvField), ids, first, ids, quoted, ids, names, ids],
  );
}

/**
 * The CSV cell of `field` as SQL over its column of the row source under `alias`, or undefined when Node writes it.
 * `zones`: the time zones PostgreSQL knows (a date field in another zone is written by Node).
 */
export function csvColumn(field: FieldModel, alias: string, zones: ReadonlySet<string>): SqlFragment | undefined {
  if (!field.column) return undefined;
  const value = `"${alias}"."${field.column}"`;
  switch (field.formulaType ?? field.type) {
    case 'string':
    case 'avatar':
      return fragment(csvText(value));
    case 'number':
      return fragment(csvNumber(value));
    case 'boolean':
      return fragment(csvBoolean(value));
    case 'dateOnly':
      return fragment(csvDate(value));
    case 'date': {
      if (field.formulaType) return fragment(csvUtc(value));
      const zone = dateZone(field);
      return zones.has(zone) ? csvZoned(value, zone) : undefined;
    }
    case 'select':
      return csvOptions(field, value);
    default:
      return undefined;
  }
}

/** The time zone a date field's cells are written in. */
export function dateZone(field: FieldModel): string {
  return typeof field.metadata.timezone === 'string' ? field.metadata.timezone : 'UTC';
}
