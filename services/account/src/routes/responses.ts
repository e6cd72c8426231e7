import { ErrorEnvelopeSchema } from '@fxdesk/schemas';

/** The error statuses every broker-backed route can answer. */
export const BROKER_ERROR_RESPONSES = {
  502: ErrorEnvelopeSchema.describe('The broker failed or refused the service (`broker_error`)'),
  503: ErrorEnvelopeSchema.describe('The broker throttles or cannot be reached (`broker_unavailable`, with Retry-After)'),
  504: ErrorEnvelopeSchema.describe('The broker did not answer in time (`broker_timeout`)'),
};

/** For routes with query parameters. */
export const VALIDATION_RESPONSE = {
  422: ErrorEnvelopeSchema.describe('A query parameter is missing or malformed (`validation_error`, with details)'),
};
