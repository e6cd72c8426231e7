import { executionCalls } from '@fxdesk/client';
import { expectClientMatchesDocument } from '@fxdesk/core/testing';
import { it } from 'vitest';
import { ScriptedTerminal } from './fake-terminal.js';
import { buildTestApp } from './helpers.js';

it('ExecutionClient checks each answer with the schema the OpenAPI document names for it', async () => {
  const { app } = await buildTestApp({ terminal: new ScriptedTerminal() });
  try {
    await expectClientMatchesDocument(app, executionCalls);
  } finally {
    await app.close();
  }
});
