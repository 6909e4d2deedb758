/** Request and response schemas of people's sessions (api/routes/sessions.routes.ts). */
import { MIN_PASSWORD_LENGTH } from '../../lib/passwords.js';
import type { JsonSchema } from '../validation.js';
import { pageSchema, strictObject } from './common.schema.js';

export const SignInSchema: JsonSchema = {
  $id: 'SignIn',
  type: 'object',
  required: ['email', 'password'],
  additionalProperties: false,
  properties: {
    email: { type: 'string', minLength: 1, maxLength: 320 },
    password: { type: 'string', minLength: 1, maxLength: 1024 },
    accountId: { type: 'integer', minimum: 1, description: 'Narrows an email that has users in several accounts to one' },
  },
  example: { email: 'admin@localhost', password: 'the password npm start printed' },
};

export const SessionSchema: JsonSchema = {
  $id: 'Session',
  ...strictObject({
    id: { type: 'string', format: 'uuid' },
    user: strictObject({
      id: { type: 'integer' },
      email: { type: 'string' },
      name: { type: 'string', description: "The user's name, or the email's part before @" },
      accountId: { type: 'integer' },
    }),
    csrfToken: { type: 'string', description: 'Send it as X-CSRF-Token on every write the session cookie authenticates' },
    expiresAt: { type: 'string', format: 'date-time' },
  }),
};

const sessionListItem = strictObject({
  id: { type: 'string', format: 'uuid' },
  createdAt: { type: 'string', format: 'date-time' },
  lastSeenAt: { type: 'string', format: 'date-time', description: 'Refreshed at most once a minute' },
  expiresAt: { type: 'string', format: 'date-time' },
  address: { type: 'string', description: "The client's address at sign-in" },
  userAgent: { type: ['string', 'null'] },
  current: { type: 'boolean', description: 'The session this request came with' },
});

export const SessionPageSchema: JsonSchema = { $id: 'SessionPage', ...pageSchema(sessionListItem) };

export const SessionIdParamsSchema: JsonSchema = {
  type: 'object',
  required: ['sessionId'],
  additionalProperties: false,
  properties: { sessionId: { type: 'string', maxLength: 100 } },
};

export const PasswordChangeSchema: JsonSchema = {
  $id: 'PasswordChange',
  type: 'object',
  required: ['currentPassword', 'newPassword'],
  additionalProperties: false,
  properties: {
    currentPassword: { type: 'string', minLength: 1, maxLength: 1024 },
    newPassword: { type: 'string', minLength: MIN_PASSWORD_LENGTH, maxLength: 1024 },
  },
};
