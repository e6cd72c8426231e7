import { describe, expect, it } from 'vitest';
import type { z } from 'zod';
import { STACK } from '../scripts/stack.js';
import { CONFIG_SCHEMAS } from './services.js';

describe('the stack table', () => {
  for (const service of STACK) {
    it(`gives ${service.name} alone the port its config defaults to`, () => {
      const port = (CONFIG_SCHEMAS[service.name] as z.ZodObject).shape.PORT as z.ZodType;
      expect(port.parse(undefined)).toBe(service.defaultPort);
    });
  }
});
