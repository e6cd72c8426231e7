import fs from 'node:fs';
import path from 'node:path';
import { STACK } from '@fxdesk/core';
import { describe, expect, it } from 'vitest';
import { envPrefix, STACK_KEYS } from '../scripts/stack-env.js';
import { settingNames } from './services.js';

const root = path.resolve(import.meta.dirname, '..');
const example = fs.readFileSync(path.join(root, '.env.example'), 'utf8');
// A setting counts as documented when a line assigns it, commented out or not.
const documented = new Set([...example.matchAll(/^#? ?([A-Z][A-Z0-9_]*)=/gm)].map((m) => m[1] as string));

describe('.env.example', () => {
  for (const service of STACK) {
    it(`documents every setting of the ${service.name} service`, () => {
      const missing = settingNames(service.name).filter((n) => !documented.has(n));
      expect(missing).toEqual([]);
    });
  }

  it('documents the stack keys and per-service port overrides', () => {
    for (const name of Object.keys(STACK_KEYS)) expect(documented).toContain(name);
    for (const service of STACK) expect(documented).toContain(`${envPrefix(service)}_PORT`);
    for (const name of ['EXECUTION_BROKER', 'ACCOUNT_BROKER', 'MARKET_DATA_BROKER']) expect(documented).toContain(name);
  });

  it('sets no key to a value (a copied file must not ship a shared secret)', () => {
    for (const name of Object.keys(STACK_KEYS)) expect(example).toMatch(new RegExp(`^${name}=$`, 'm'));
  });
});
