/**
 * The baseline of bench/execution: bare Fastify with the same zod validation of the same
 * signal body (fastify-type-provider-zod, SignalSubmissionSchema), echoing it back. No auth,
 * no store, no terminal, no kit.
 */
import Fastify from 'fastify';
import { serializerCompiler, validatorCompiler, type ZodTypeProvider } from 'fastify-type-provider-zod';
import { SignalSubmissionSchema } from '@fxdesk/schemas';

const app = Fastify({ logger: false }).withTypeProvider<ZodTypeProvider>();
app.setValidatorCompiler(validatorCompiler);
app.setSerializerCompiler(serializerCompiler);
app.post('/v1/signals', { schema: { body: SignalSubmissionSchema } }, async (request) => request.body);
await app.listen({ host: '127.0.0.1', port: Number(process.env.PORT ?? 0) });
process.stdout.write('listening\n');
process.on('SIGTERM', () => void app.close().then(() => process.exit(0)));
