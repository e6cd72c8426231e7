import type { FastifyInstance, RouteOptions } from 'fastify';
import { validatorCompiler } from 'fastify-type-provider-zod';
import { z } from 'zod';

type Schema = z.ZodType;

/**
 * A query schema that refuses the parameters it does not name: a zod object that neither is
 * strict nor says `.loose()` (a webhook whose sender adds its own parameters) is made strict, as
 * body schemas are written (`z.strictObject`), and so is the object a transform or refinement
 * starts from. Anything else is returned as it is.
 */
export function strictQuerySchema(schema: unknown): unknown {
  if (!(schema instanceof z.ZodType)) return schema;
  const def = schema._zod.def as { type: string; catchall?: unknown; in?: Schema; out?: Schema };
  if (def.type === 'object' && def.catchall === undefined) return (schema as z.ZodObject).strict();
  if (def.type === 'pipe' && def.in !== undefined && def.out !== undefined) {
    const strictIn = strictQuerySchema(def.in) as Schema;
    return strictIn === def.in ? schema : strictIn.pipe(def.out);
  }
  return schema;
}

/** The query a documented route that declares none takes: no parameter at all. */
const NO_QUERY = z.strictObject({});

/**
 * Unknown query parameters answer 422 `validation_error`, as unknown body fields do: every
 * route's query schema is checked strictly (see strictQuerySchema), and a documented route with
 * no query schema takes no parameter. Hidden routes without one (Swagger UI's files, /metrics,
 * the console's pages) ignore their query. Must run before the OpenAPI answers are documented.
 */
export function refuseUnknownQueryParameters(app: FastifyInstance): void {
  app.setValidatorCompiler<Schema>((route) =>
    validatorCompiler(route.httpPart === 'querystring' ? { ...route, schema: strictQuerySchema(route.schema) as Schema } : route),
  );
  app.addHook('onRoute', (route: RouteOptions) => {
    const schema = (route.schema ??= {});
    if (!schema.hide && schema.querystring === undefined) schema.querystring = NO_QUERY;
  });
}
