import { parseArgs } from 'node:util';
import { loadConfig, type Config } from '../config.ts';
import { openDatabase, type Database } from '../db/database.ts';
import { migrateToLatest } from '../db/migrate.ts';
import { AppError } from '../http/errors.ts';
import { COMMANDS, type Command } from './commands.ts';

/** Thrown for a command line that does not parse; exits 2, like other Unix tools. */
export class UsageError extends Error {}

export interface CliIo {
  out: (text: string) => void;
  err: (text: string) => void;
}

const USAGE = `usage: sightline <command> [options] [--json]

  serve                     start the service (as npm start)
  migrate                   bring the database schema up to date
  workspace create --name N [--plan free|starter|growth|enterprise]
  workspace list
  workspace update ID [--plan P] [--api-access true|false] [--credits-enforced true|false] [--daily-ceiling-usd X]
  credits grant --workspace ID --credits X [--note T]
  project create --workspace ID --name N --domain D [--color C] [--alias A]...
  project list [--workspace ID]
  competitor add --project ID --name N --domain D [--color C] [--alias A]...
  competitor list --project ID
  key create --workspace ID [--project ID] --scopes read,ingest [--rate-limit N] [--name T]
  key list --workspace ID
  key revoke ID
  engines list
  topics list --project ID
  runs import --project ID FILE|-
  webhook add --workspace ID --url U
  webhook list [--workspace ID]
  demo [--workspace ID]
  prompt add --project ID --text T [--topic N] [--branded true|false] [--location L]... [--engine K]... [--samples N] [--cadence daily|weekly|paused]
  prompt update ID [the prompt add flags; --engine all for every configured engine]
  prompt remove ID
  prompt list --project ID
  prompt estimate --project ID
  sample --project ID [--prompt ID] [--wait]
  providers list
  verify --project ID [--wait]
  user create --workspace ID --email E [--role owner|viewer]   (the password on standard input)
  mcp                       the MCP tool server on standard input and output (key in SIGHTLINE_API_KEY)

With --json each command prints exactly one JSON object on stdout. Commands and a server share the
embedded PostgreSQL of a data directory: whichever needs it first starts it.`;

/** Runs one command line; returns the exit code. */
export async function runCli(argv: string[], io: CliIo, config: Config = loadConfig()): Promise<number> {
  const json = argv.includes('--json');
  try {
    const [first, second] = argv.filter((a) => !a.startsWith('-'));
    if (argv.includes('--help') || argv.includes('-h')) {
      io.out(json ? JSON.stringify({ usage: USAGE }) : USAGE);
      return 0;
    }
    if (first === undefined) throw new UsageError('no command');
    const twoWord = second !== undefined ? COMMANDS[`${first} ${second}`] : undefined;
    const command: Command | undefined = twoWord ?? COMMANDS[first];
    if (!command) throw new UsageError(`unknown command "${[first, second].filter(Boolean).join(' ')}"`);
    const rest = dropWords(argv, twoWord ? 2 : 1);
    const { values, positionals } = parseCommandLine(rest, command);
    if (command.run === 'serve') {
      const { startServer, stopOnSignals } = await import('../server.ts');
      stopOnSignals(await startServer(config));
      return -1; // keeps running
    }
    const database = await openDatabase(config, 2);
    try {
      await migrateToLatest(database.db);
      const result = await command.run({ db: database.db, config, values, positionals, now: new Date() });
      if (json || result.text !== '') io.out(json ? JSON.stringify(result.json) : result.text);
      return 0;
    } finally {
      await closeQuietly(database);
    }
  } catch (error) {
    return report(error, json, io);
  }
}

function dropWords(argv: string[], count: number): string[] {
  const out = [...argv];
  for (let dropped = 0, i = 0; dropped < count && i < out.length; ) {
    if (!out[i]!.startsWith('-')) {
      out.splice(i, 1);
      dropped++;
    } else i++;
  }
  return out;
}

function parseCommandLine(args: string[], command: Command) {
  try {
    const parsed = parseArgs({
      args,
      options: { json: { type: 'boolean' }, ...command.options },
      allowPositionals: true,
      strict: true,
    });
    const positionals = parsed.positionals;
    if (positionals.length !== (command.positionals ?? []).length) {
      throw new UsageError(`${command.name} takes ${(command.positionals ?? []).map((p) => p.toUpperCase()).join(' ') || 'no arguments'}`);
    }
    for (const required of command.required ?? []) {
      if ((parsed.values as Record<string, unknown>)[required] === undefined) throw new UsageError(`${command.name} needs --${required}`);
    }
    return { values: parsed.values as Record<string, string | string[] | boolean | undefined>, positionals };
  } catch (error) {
    if (error instanceof UsageError) throw error;
    throw new UsageError(error instanceof Error ? error.message : String(error));
  }
}

function report(error: unknown, json: boolean, io: CliIo): number {
  if (error instanceof UsageError) {
    io.err(json ? JSON.stringify({ error: { code: 'usage', message: error.message } }) : `sightline: ${error.message}\n\n${USAGE}`);
    return 2;
  }
  if (error instanceof AppError) {
    const body = { error: { code: error.code, message: error.message, ...(error.details ? { details: error.details } : {}) } };
    io.err(json ? JSON.stringify(body) : `sightline: ${error.message}`);
    return 1;
  }
  const message = error instanceof Error ? error.message : String(error);
  io.err(json ? JSON.stringify({ error: { code: 'internal', message } }) : `sightline: ${message}`);
  return 1;
}

async function closeQuietly(database: Database): Promise<void> {
  try {
    await database.close();
  } catch {
    // The command's result stands; a failure to close a connection is not the user's concern.
  }
}

/** The process entry: arguments from argv, output to stdout/stderr, the exit code set. */
export async function cliMain(argv: string[] = process.argv.slice(2)): Promise<void> {
  const code = await runCli(argv, {
    out: (text) => process.stdout.write(`${text}\n`),
    err: (text) => process.stderr.write(`${text}\n`),
  });
  if (code >= 0) process.exitCode = code;
}

if (import.meta.main) await cliMain();
