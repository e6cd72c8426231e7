import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { envPrefix, STACK_KEYS } from '../scripts/stack-env.js';
import { STACK } from '../scripts/stack.js';
import { z } from 'zod';
import { CONFIG_SCHEMAS, settingNames } from './services.js';

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

/** The comment lines above a setting's line and the assignment lines grouped with it. */
function blockOf(name: string): string | undefined {
  const lines = example.split('\n');
  const at = lines.findIndex((line) => new RegExp(`^#? ?${name}=`).test(line));
  if (at < 0) return undefined;
  let start = at;
  while (start > 0 && /^#? ?[A-Z][A-Z0-9_]*=/.test(lines[start - 1] as string)) start--;
  while (start > 0 && /^# /.test(lines[start - 1] as string) && !/^# ?[A-Z][A-Z0-9_]*=/.test(lines[start - 1] as string)) start--;
  return lines.slice(start, at + 1).join('\n');
}

/** A number as a person may write it: 65535, 65,535 or 65 535. */
function mentionsNumber(text: string, n: number): boolean {
  const plain = String(n);
  const grouped = plain.replace(/\B(?=(\d{3})+(?!\d))/g, ',');
  return [plain, grouped, grouped.replace(/,/g, ' ')].some((form) => new RegExp(`(^|[^\\d.])${form.replace(/\./g, '\\.')}($|[^\\d])`).test(text));
}

interface SettingSchema {
  minimum?: number;
  maximum?: number;
  minLength?: number;
  enum?: unknown[];
  items?: { enum?: unknown[] };
}

describe('.env.example states each setting’s constraints beside it', () => {
  for (const service of STACK) {
    it(`the ${service.name} service: bounds, shortest lengths and allowed values`, () => {
      const schema = z.toJSONSchema(CONFIG_SCHEMAS[service.name] as z.ZodObject, { io: 'output', unrepresentable: 'any' }) as {
        properties: Record<string, SettingSchema>;
      };
      const unstated: string[] = [];
      for (const [name, s] of Object.entries(schema.properties)) {
        const block = blockOf(name);
        if (block === undefined) continue;
        for (const bound of [s.minimum, s.maximum]) {
          if (bound !== undefined && bound < Number.MAX_SAFE_INTEGER && !mentionsNumber(block, bound)) unstated.push(`${name}: ${bound}`);
        }
        if (s.minLength !== undefined && s.minLength > 1 && !block.replace(/\n# ?/g, ' ').includes(`at least ${s.minLength} characters`)) {
          unstated.push(`${name}: at least ${s.minLength} characters`);
        }
        for (const value of [...(s.enum ?? []), ...(s.items?.enum ?? [])]) if (!block.includes(String(value))) unstated.push(`${name}: ${String(value)}`);
      }
      expect(unstated).toEqual([]);
    });
  }
});
