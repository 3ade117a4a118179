import { BadRequestError } from '../http/errors.ts';
import { ENGINE_KEYS, includes, type EngineKey } from '../runs/vocabulary.ts';

/** How a prompt is checked (operations.md section 6). */
export const CADENCES = ['daily', 'weekly', 'paused'] as const;
export type Cadence = (typeof CADENCES)[number];

export interface PromptSettings {
  text: string;
  /** The topic's name (created on first use, matched case-insensitively), or null. */
  topic: string | null;
  branded: boolean;
  /** Where it is checked; empty: once, at the provider's default location. */
  locations: string[];
  /** The engines it is checked on; null: every configured engine. */
  engines: EngineKey[] | null;
  samples: number;
  cadence: Cadence;
}

/** A prompt's settings as a command or a request gives them: any subset, unchecked. */
export interface PromptInput {
  text?: string | undefined;
  topic?: string | null | undefined;
  branded?: boolean | undefined;
  locations?: readonly string[] | undefined;
  engines?: readonly string[] | null | undefined;
  samples?: number | undefined;
  cadence?: string | undefined;
}

export const DEFAULT_SETTINGS: Omit<PromptSettings, 'text'> = { topic: null, branded: false, locations: [], engines: null, samples: 1, cadence: 'daily' };

export const MAX_PROMPT_TEXT = 1_000;
export const MAX_LOCATIONS = 50;
export const MAX_SAMPLES = 100;

/**
 * The settings given, checked: text 1 to 1,000 characters that a database can hold (no NUL, no
 * unpaired surrogate) and not blank; a topic name of 1 to 200; locations 1 to 100 characters
 * each, at most 50, repeats dropped; engine keys of the seven (an empty list means every
 * configured engine); samples a whole number from 1 to 100; cadence daily, weekly or paused.
 * Every field at fault is named in `details`.
 */
export function checkPromptInput(input: PromptInput): Partial<PromptSettings> {
  const details: Record<string, string> = {};
  const out: Partial<PromptSettings> = {};
  if (input.text !== undefined) {
    if (input.text.trim() === '' || input.text.length > MAX_PROMPT_TEXT || !storable(input.text)) details.text = `must be 1 to ${MAX_PROMPT_TEXT} characters of text, not blank`;
    else out.text = input.text;
  }
  if (input.topic !== undefined) {
    if (input.topic === null) out.topic = null;
    else if (input.topic.trim() === '' || input.topic.length > 200 || !storable(input.topic)) details.topic = 'must be a name of 1 to 200 characters';
    else out.topic = input.topic.trim();
  }
  if (input.branded !== undefined) out.branded = input.branded;
  if (input.locations !== undefined) {
    const bad = input.locations.find((l) => l.trim() === '' || l.length > 100 || !storable(l));
    const unique = [...new Set(input.locations.map((l) => l.trim()))];
    if (bad !== undefined) details.locations = 'each location must be 1 to 100 characters';
    else if (unique.length > MAX_LOCATIONS) details.locations = `at most ${MAX_LOCATIONS} locations`;
    else out.locations = unique;
  }
  if (input.engines !== undefined) {
    if (input.engines === null || input.engines.length === 0) out.engines = null;
    else {
      const unknown = input.engines.filter((e) => !includes(ENGINE_KEYS, e));
      if (unknown.length) details.engines = `unknown engine ${unknown.join(', ')}; one of ${ENGINE_KEYS.join(', ')}`;
      else out.engines = ENGINE_KEYS.filter((k) => input.engines!.includes(k));
    }
  }
  if (input.samples !== undefined) {
    if (!Number.isInteger(input.samples) || input.samples < 1 || input.samples > MAX_SAMPLES) details.samples = `must be a whole number from 1 to ${MAX_SAMPLES}`;
    else out.samples = input.samples;
  }
  if (input.cadence !== undefined) {
    if (!includes(CADENCES, input.cadence)) details.cadence = `must be one of ${CADENCES.join(', ')}`;
    else out.cadence = input.cadence;
  }
  if (Object.keys(details).length) throw new BadRequestError(`invalid prompt: ${Object.entries(details).map(([k, v]) => `${k} ${v}`).join('; ')}`, details);
  return out;
}

/** Text PostgreSQL can store: no NUL, no unpaired surrogate. */
function storable(value: string): boolean {
  return !value.includes('\u0000') && value.isWellFormed();
}
