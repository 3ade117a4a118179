import type { Kysely } from 'kysely';
import type { Config } from '../config.ts';
import type { DB } from '../db/types.ts';

/** A command of the CLI: its options, what it requires, and what it does. */
export type Values = Record<string, string | string[] | boolean | undefined>;

export interface CommandContext {
  db: Kysely<DB>;
  config: Config;
  values: Values;
  positionals: string[];
  now: Date;
}

export interface CommandResult {
  /** The one JSON object printed with --json. */
  json: object;
  /** What a person reads without --json. */
  text: string;
}

export type OptionSpec = { type: 'string' | 'boolean'; multiple?: boolean };

export interface Command {
  name: string;
  options: Record<string, OptionSpec>;
  required?: string[];
  positionals?: string[];
  run: 'serve' | ((context: CommandContext) => Promise<CommandResult>);
}

export const str = (values: Values, name: string): string | undefined => {
  const v = values[name];
  return typeof v === 'string' ? v : undefined;
};
export const list = (values: Values, name: string): string[] => {
  const v = values[name];
  return Array.isArray(v) ? v : typeof v === 'string' ? [v] : [];
};
/** Rows of columns, aligned, for a person to read. */
export const table = (rows: string[][]): string => {
  const widths = rows.reduce<number[]>((w, row) => row.map((cell, i) => Math.max(w[i] ?? 0, cell.length)), []);
  return rows.map((row) => row.map((cell, i) => (i === row.length - 1 ? cell : cell.padEnd(widths[i]!))).join('  ')).join('\n');
};
export const idResult = (id: string, what: string): CommandResult => ({ json: { id }, text: `${what} ${id}` });
