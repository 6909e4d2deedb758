/**
 * The one ajv instance. Route schemas are compiled once at start; the OpenAPI document is built from the
 * same schema objects, so what is documented is what is enforced.
 */
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';
import { BadRequestError, type Issue } from '../lib/errors.js';
import { DATE_FORMATS } from '../lib/time/date-formats.js';

/** A JSON Schema (draft 2020-12 subset that ajv and OpenAPI 3.1 share). */
export type JsonSchema = Record<string, unknown>;

// ajv-formats ships CommonJS with a default export object.
const addFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv;

const ajv = new Ajv({
  allErrors: true,
  strict: true,
  coerceTypes: false,
  useDefaults: true,
  discriminator: true,
  allowUnionTypes: true,
  verbose: true,
});
addFormats(ajv);
// OpenAPI annotation keywords that ajv does not know.
ajv.addKeyword({ keyword: 'example' });

/** Every date and time the API takes is a real calendar value (lib/time/date-formats.ts), in bodies and queries alike. */
function addDateFormats(instance: Ajv): void {
  for (const [name, format] of Object.entries(DATE_FORMATS)) instance.addFormat(name, { type: 'string', validate: format.test });
}
addDateFormats(ajv);

/** Ajv with type coercion, for query strings and path parameters, whose values arrive as strings. */
const ajvCoercing = new Ajv({
  allErrors: true,
  strict: true,
  coerceTypes: true,
  useDefaults: true,
  discriminator: true,
  allowUnionTypes: true,
  verbose: true,
});
addFormats(ajvCoercing);
ajvCoercing.addKeyword({ keyword: 'example' });
addDateFormats(ajvCoercing);

export type Validator = ValidateFunction;

/** Schemas other schemas reference by `{ $ref: '<$id>' }`; the OpenAPI document lists them under components. */
export const sharedSchemas: JsonSchema[] = [];

/** Registers a schema with an `$id` for `$ref` use in route schemas (once per process). */
export function registerSharedSchema(schema: JsonSchema): void {
  const id = schema.$id as string;
  if (sharedSchemas.some((s) => s.$id === id)) return;
  sharedSchemas.push(schema);
  ajv.addSchema(schema);
  ajvCoercing.addSchema(schema);
}

export function compileSchema(schema: JsonSchema, { coerce = false } = {}): Validator {
  return (coerce ? ajvCoercing : ajv).compile(schema);
}

/**
 * `filter.and[0].operator`: body paths start at the body (as the services' own issues do); query and path
 * parameters are prefixed with `query.` / `params.`.
 */
function issuePath(location: string, error: ErrorObject): string {
  const pointer = error.instancePath
    .split('/')
    .slice(1)
    .map((part) => part.replace(/~1/g, '/').replace(/~0/g, '~'));
  if (error.keyword === 'required') pointer.push(String(error.params.missingProperty));
  if (error.keyword === 'additionalProperties') pointer.push(String(error.params.additionalProperty));
  const parts = location === 'body' ? pointer : [location, ...pointer];
  return parts.reduce((path, part) => (/^\d+$/.test(part) ? `${path}[${part}]` : path ? `${path}.${part}` : part), '') || location;
}

/** Keywords whose failure only says which branch of a schema did not apply; the real problem is reported too. */
const NOISE = new Set(['if', 'oneOf', 'anyOf', 'discriminator']);

const TYPE_NAMES: Record<string, string> = {
  integer: 'an integer',
  number: 'a number',
  string: 'a string',
  boolean: 'a boolean',
  object: 'an object',
  array: 'an array',
  null: 'null',
};

/** `must be an integer or null` for a type error of `['integer', 'null']`. */
function typeMessage(types: unknown): string {
  const list = (Array.isArray(types) ? types : String(types).split(',')).map((t) => TYPE_NAMES[t] ?? t);
  return `must be ${list.join(' or ')}`;
}

/** `is required`, naming the allowed values when the property has a list of them. */
function requiredMessage(error: ErrorObject): string {
  const property = (error.parentSchema as { properties?: Record<string, { enum?: unknown[] }> } | undefined)?.properties?.[
    String(error.params.missingProperty)
  ];
  const values = property?.enum?.filter((v) => v !== null);
  return values?.length ? `is required: one of ${values.join(', ')}` : 'is required';
}

function issueMessage(error: ErrorObject): string {
  switch (error.keyword) {
    case 'required':
      return requiredMessage(error);
    case 'type':
      return typeMessage(error.params.type);
    case 'additionalProperties':
      return 'is not an allowed property';
    case 'enum':
      return `must be one of ${(error.params.allowedValues as unknown[])
        .filter((v) => v !== null)
        .map((v) => (typeof v === 'string' ? v : JSON.stringify(v)))
        .join(', ')}`;
    case 'format':
      return DATE_FORMATS[error.params.format as keyof typeof DATE_FORMATS]?.message ?? error.message ?? 'is invalid';
    default:
      return error.message ?? 'is invalid';
  }
}

/** Validates `data` in place (defaults applied) or throws 400 `bad_request` listing every problem. */
export function validate<T>(validator: Validator, data: unknown, location: 'body' | 'query' | 'params' | 'headers'): T {
  if (validator(data)) return data as T;
  const errors = validator.errors ?? [];
  const meaningful = errors.filter((e) => !NOISE.has(e.keyword));
  const issues: Issue[] = (meaningful.length ? meaningful : errors).map((error) => ({
    code: error.keyword === 'required' ? 'required' : error.keyword === 'additionalProperties' ? 'unknown_field' : 'invalid',
    path: issuePath(location, error),
    message: issueMessage(error),
  }));
  const first = issues[0];
  throw new BadRequestError(first ? `Invalid ${location}: ${first.path} ${first.message}` : `Invalid ${location}`, issues);
}
