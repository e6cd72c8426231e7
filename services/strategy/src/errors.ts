import { defineErrors } from '@fxdesk/core';

/**
 * The strategy service's own codes (spec 000 "Errors"), written lower_snake here and sent
 * UPPER_SNAKE (the app sets errorCodeCase 'upper'). The kit adds VALIDATION_ERROR,
 * INVALID_JSON, NOT_FOUND, RATE_LIMITED and INTERNAL_ERROR.
 */
export const errors = defineErrors({
  instrument_not_found: 404,
  strategy_already_running: 409,
  strategy_not_running: 409,
});
