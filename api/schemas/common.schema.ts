/** Schemas shared by many routes; they appear under `components.schemas` of the OpenAPI document. */
import type { JsonSchema } from '../validation.js';

export const ErrorSchema: JsonSchema = {
  $id: 'Error',
  type: 'object',
  required: ['code', 'message'],
  properties: {
    code: {
      type: 'string',
      enum: [
        'bad_request',
        'unauthorized',
        'forbidden',
        'not_found',
        'conflict',
        'conversation_claimed',
        'precondition_failed',
        'payload_too_large',
        'rate_limited',
        'internal',
        'invalid_credentials',
        'csrf_token_invalid',
        'sign_in_locked',
      ],
    },
    message: { type: 'string' },
    details: {
      type: 'object',
      properties: {
        issues: {
          type: 'array',
          items: {
            type: 'object',
            required: ['code', 'path', 'message'],
            properties: { code: { type: 'string' }, path: { type: 'string' }, message: { type: 'string' } },
          },
        },
      },
    },
  },
};

/** Responses every authenticated route can give, merged into each operation of the document. */
export const AUTH_RESPONSES = {
  401: { description: 'Missing, malformed, unknown or revoked API key, or an expired or revoked session' },
  403: {
    description:
      'A GENERAL key was used on an endpoint that requires a USER key, or a write authenticated by the session cookie lacks its X-CSRF-Token (`csrf_token_invalid`)',
  },
};

/** A response object schema whose every listed property is required and nothing else is allowed. */
export const strictObject = (properties: Record<string, JsonSchema>, description?: string): JsonSchema => ({
  type: 'object',
  ...(description && { description }),
  required: Object.keys(properties),
  additionalProperties: false,
  properties,
});

/**
 * A date bound of a query: `YYYY-MM-DD` or an ISO date-time naming a real calendar value (the `date-bound` format of
 * api/validation.ts). `notGiven` lists the values that mean "no bound" (SPEC's nullable dates: `?startDate=`, `null`).
 */
export function dateBoundQuery(description: string, notGiven: string[] = []): JsonSchema {
  const schema = { type: 'string', maxLength: 40, description };
  return notGiven.length ? { ...schema, if: { not: { enum: notGiven } }, then: { format: 'date-bound' } } : { ...schema, format: 'date-bound' };
}

/** `limit` and `cursor` of a paginated list. */
export const PageQuerySchema: JsonSchema = {
  type: 'object',
  additionalProperties: false,
  properties: { limit: { type: 'integer', minimum: 1, maximum: 500, default: 50 }, cursor: { type: 'string', maxLength: 200 } },
};

/** A user as resources name one (an author, an assignee's completer, an uploader); null when there is none. */
export const userRefSchema: JsonSchema = { ...strictObject({ id: { type: 'integer' }, email: { type: 'string' } }), type: ['object', 'null'] };

/** A page of a cursor-paginated list: `{ agentry: [item], nextCursor }`. */
export const pageSchema = (item: JsonSchema): JsonSchema =>
  strictObject({
    agentry: { type: 'array', items: item },
    nextCursor: { type: ['string', 'null'], description: 'Pass as `cursor` for the next page' },
  });
