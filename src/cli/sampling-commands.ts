import type { Kysely } from 'kysely';
import type { DB } from '../db/types.ts';
import { createOutbound } from '../outbound/outbound.ts';
import { configuredUserAgent } from '../outbound/user-agent.ts';
import { addPrompt } from '../prompts/add-prompt.ts';
import { estimatePrompts } from '../prompts/estimate-prompts.ts';
import { listPrompts, type PromptView } from '../prompts/list-prompts.ts';
import { checkPromptInput, type PromptInput } from '../prompts/prompt-settings.ts';
import { removePrompt } from '../prompts/remove-prompt.ts';
import { updatePrompt } from '../prompts/update-prompt.ts';
import { ENGINE_ADAPTERS } from '../sampling/providers/adapters.ts';
import { configuredEngines, providerOrigins } from '../sampling/providers/providers-config.ts';
import { sampleNow } from '../sampling/sample-now.ts';
import { createChecker } from '../verification/checker.ts';
import { dnsHealth } from '../verification/dns-health.ts';
import { verifyNow } from '../verification/verify-now.ts';
import { serveMcpOverStdio } from '../mcp/stdio.ts';
import { NotFoundError } from '../http/errors.ts';
import { listProviders } from '../sampling/providers/list-providers.ts';
import { booleanFlag, numberFlag, uuidFlag } from './flags.ts';
import { idResult, list, str, table, type Command, type OptionSpec, type Values } from './command.ts';

const promptOptions: Record<string, OptionSpec> = {
  text: { type: 'string' },
  topic: { type: 'string' },
  branded: { type: 'string' },
  location: { type: 'string', multiple: true },
  engine: { type: 'string', multiple: true },
  samples: { type: 'string' },
  cadence: { type: 'string' },
};

/** The prompt flags given: `--engine all` is every configured engine; repeated flags make lists. */
function promptInput(values: Values): PromptInput {
  const engines = list(values, 'engine');
  return {
    text: str(values, 'text'),
    topic: str(values, 'topic'),
    branded: booleanFlag('branded', str(values, 'branded')),
    locations: values.location === undefined ? undefined : list(values, 'location'),
    engines: values.engine === undefined ? undefined : engines.includes('all') ? null : engines,
    samples: numberFlag('samples', str(values, 'samples')),
    cadence: str(values, 'cadence'),
  };
}

/** The prompt as `prompt list` shows it (operations.md section 6). */
const listed = (p: PromptView) => ({ id: p.id, text: p.text, topic: p.topic, branded: p.branded, locations: p.locations, engines: p.engines, samples: p.samples, cadence: p.cadence });

export const SAMPLING_COMMANDS: Record<string, Command> = {
  'prompt add': {
    name: 'prompt add',
    options: { project: { type: 'string' }, ...promptOptions },
    required: ['project', 'text'],
    run: async ({ db, values }) => {
      const settings = checkPromptInput(promptInput(values));
      const { id } = await addPrompt(db, uuidFlag('project', str(values, 'project')!), { ...settings, text: settings.text! });
      return idResult(id, 'added prompt');
    },
  },

  'prompt update': {
    name: 'prompt update',
    options: promptOptions,
    positionals: ['id'],
    run: async ({ db, values, positionals }) => {
      const { id } = await updatePrompt(db, uuidFlag('id', positionals[0]!), checkPromptInput(promptInput(values)));
      return idResult(id, 'updated prompt');
    },
  },

  'prompt remove': {
    name: 'prompt remove',
    options: {},
    positionals: ['id'],
    run: async ({ db, positionals, now }) => {
      const removed = await removePrompt(db, uuidFlag('id', positionals[0]!), now);
      return { json: removed, text: `removed prompt ${removed.id} at ${removed.removedAt}` };
    },
  },

  'prompt list': {
    name: 'prompt list',
    options: { project: { type: 'string' } },
    required: ['project'],
    run: async ({ db, config, values }) => {
      const projectId = uuidFlag('project', str(values, 'project')!);
      await projectExists(db, projectId);
      const prompts = await listPrompts(db, projectId, configuredEngines(config.sampling.providers));
      return {
        json: { prompts: prompts.map(listed) },
        text: table(prompts.map((p) => [p.id, p.cadence, `${p.samples}x`, p.engines.join(',') || '(no engine configured)', p.locations.join(',') || '-', p.text])) || '(no prompts)',
      };
    },
  },

  'prompt estimate': {
    name: 'prompt estimate',
    options: { project: { type: 'string' } },
    required: ['project'],
    run: async ({ db, config, values }) => {
      const projectId = uuidFlag('project', str(values, 'project')!);
      await projectExists(db, projectId);
      const configured = configuredEngines(config.sampling.providers);
      const estimate = estimatePrompts(await listPrompts(db, projectId, configured), configured);
      return { json: estimate, text: `${estimate.checksPerMonth} checks a month, ${estimate.creditsPerMonth} credits, ${estimate.usdPerMonth} USD` };
    },
  },

  sample: {
    name: 'sample',
    options: { project: { type: 'string' }, prompt: { type: 'string' }, wait: { type: 'boolean' } },
    required: ['project'],
    run: async ({ db, config, values }) => {
      const outbound = createOutbound({
        userAgent: configuredUserAgent(config),
        resolve: config.resolve,
        trusted: providerOrigins(config.sampling.providers),
      });
      try {
        const result = await sampleNow(
          { db, outbound, sampling: config.sampling, providers: config.sampling.providers, adapters: ENGINE_ADAPTERS, now: () => new Date(), onError: (error) => console.error(error) },
          uuidFlag('project', str(values, 'project')!),
          uuidFlag('prompt', str(values, 'prompt')),
          values.wait === true,
        );
        return {
          json: result,
          text: `${result.checks} checks: ${result.ok} answered, ${result.noAnswer} without an AI answer, ${result.failed} failed, ${result.skipped} skipped; ${result.creditsCharged} credits charged`,
        };
      } finally {
        await outbound.close();
      }
    },
  },

  verify: {
    name: 'verify',
    options: { project: { type: 'string' }, wait: { type: 'boolean' } },
    required: ['project'],
    run: async ({ db, config, values }) => {
      const outbound = createOutbound({ userAgent: configuredUserAgent(config), resolve: config.resolve });
      try {
        const result = await verifyNow(
          { db, check: createChecker(outbound), dnsWorks: dnsHealth(outbound), now: () => new Date(), recheckDays: config.verification.recheckDays, concurrency: config.verification.concurrency, onError: (error) => console.error(error) },
          uuidFlag('project', str(values, 'project')!),
          values.wait === true,
        );
        return {
          json: result,
          text: `${result.checked} checked: ${result.verified} verified, ${result.stale} stale, ${result.broken} broken, ${result.hallucinated} hallucinated, ${result.unchecked} still unchecked`,
        };
      } finally {
        await outbound.close();
      }
    },
  },

  mcp: {
    name: 'mcp',
    options: {},
    run: async ({ db, config }) => {
      const providerOutbound = createOutbound({ userAgent: configuredUserAgent(config), resolve: config.resolve, trusted: providerOrigins(config.sampling.providers) });
      const outbound = createOutbound({ userAgent: configuredUserAgent(config), resolve: config.resolve });
      const engineIds = new Set((await db.selectFrom('engines').select('id').execute()).map((e) => e.id));
      try {
        await serveMcpOverStdio(
          {
            db,
            now: () => new Date(),
            engineIds,
            configuredEngines: configuredEngines(config.sampling.providers),
            sampler: { db, outbound: providerOutbound, sampling: config.sampling, providers: config.sampling.providers, adapters: ENGINE_ADAPTERS, now: () => new Date() },
            verifier: { db, check: createChecker(outbound), dnsWorks: dnsHealth(outbound), now: () => new Date(), recheckDays: config.verification.recheckDays, concurrency: config.verification.concurrency },
          },
          process.env.SIGHTLINE_API_KEY,
        );
      } finally {
        await outbound.close();
        await providerOutbound.close();
      }
      return { json: { stopped: true }, text: '' };
    },
  },

  'providers list': {
    name: 'providers list',
    options: {},
    run: async ({ config }) => {
      const providers = listProviders(config.sampling.providers);
      return {
        json: { providers },
        text: table(providers.map((p) => [p.engine, p.provider, p.configured ? 'configured' : 'no key', p.model, p.baseUrl])),
      };
    },
  },
};

async function projectExists(db: Kysely<DB>, projectId: string): Promise<void> {
  const project = await db.selectFrom('projects').select('id').where('id', '=', projectId).executeTakeFirst();
  if (!project) throw new NotFoundError(`no project ${projectId}`);
}
