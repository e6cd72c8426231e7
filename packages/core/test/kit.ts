import { buildService, type App, type ServiceOptions } from '../src/service.js';

/** A kit-built service for a test: silent, named `test`, with any option the test sets. */
export function testService(options: Partial<ServiceOptions> = {}): Promise<App> {
  return buildService({ name: 'test', title: 'Test', description: 'test service', version: '9.9.9', logLevel: 'silent', ...options });
}
