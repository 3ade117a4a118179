import AjvCompiler from '@fastify/ajv-compiler';
import type { FastifyInstance } from 'fastify';

const OPTIONS = { allErrors: true, removeAdditional: true, useDefaults: true } as const;
const strict = AjvCompiler()({}, { customOptions: { ...OPTIONS, coerceTypes: false } });
const coercing = AjvCompiler()({}, { customOptions: { ...OPTIONS, coerceTypes: 'array' } });

/**
 * In this context JSON bodies are taken as typed: a `null`, `true` or `"12"` where a number or a
 * boolean belongs is refused (400), not turned into `0`, `1` or `false` as the service's default
 * coercion would (it is for query strings, which carry text only). Query strings and path
 * parameters keep that coercion. For the app's management API and sessions: there a `null` given
 * back (an API access left to the plan) must never become `false`.
 */
export function strictBodies(app: FastifyInstance): void {
  app.setValidatorCompiler((route) => (route.httpPart === 'body' ? strict : coercing)(route as Parameters<typeof strict>[0]));
}
