import { defineConfig } from 'vitest/config';

// One `npm test` over every workspace: each package and service is a vitest project.
export default defineConfig({
  test: {
    projects: ['packages/*', 'services/*', 'test'],
  },
});
