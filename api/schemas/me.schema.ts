import type { JsonSchema } from '../validation.js';

export const MeResponseSchema: JsonSchema = {
  $id: 'MeResponse',
  type: 'object',
  required: ['ok', 'data'],
  additionalProperties: false,
  properties: {
    ok: { type: 'boolean' },
    data: {
      type: 'object',
      required: ['account', 'user'],
      additionalProperties: false,
      properties: {
        account: {
          type: 'object',
          required: ['id', 'name', 'namespace'],
          additionalProperties: false,
          properties: { id: { type: 'integer' }, name: { type: 'string' }, namespace: { type: 'string' } },
        },
        user: {
          description: 'null when a GENERAL key is used',
          oneOf: [
            {
              type: 'object',
              required: ['id', 'email'],
              additionalProperties: false,
              properties: { id: { type: 'integer' }, email: { type: 'string' } },
            },
            { type: 'null' },
          ],
        },
      },
    },
  },
};
