import type { z } from 'zod';
import type { Logger } from '../logger.js';
import type { AccountGuards } from './guard.js';
import { ProcessorHttp } from './http.js';
import { type ProcessorConnection, ProcessorError } from './types.js';

/**
 * What every HTTP adapter is built with, and the few steps they all take the same way: reading the
 * account's credentials with the adapter's schema, choosing the host by mode (or the account's
 * `--base-url`), and opening the one HTTP layer (http.ts) for the account.
 */
export interface AdapterContext {
  logger?: Logger;
  /** Per-account rate limits and circuit breakers (guard.ts); absent in unit tests of an adapter. */
  guards?: AccountGuards;
}

/** A processor's production and sandbox hosts. */
export interface Hosts {
  live: string;
  test: string;
}

export interface HttpSettings {
  processor: string;
  hosts: Hosts;
  /** Calls a second this service allows itself per account, below the processor's published limit. */
  perSecond: number;
  /** A rate limit of the account's apart from its own, for calls that must not spend it (guard.ts). */
  budget?: string;
  headers?: Record<string, string>;
}

/** The host an account's calls go to: its own override, else the processor's for the account's mode. */
export function baseUrlOf(connection: ProcessorConnection, hosts: Hosts): string {
  return connection.baseUrl ?? (connection.account.livemode ? hosts.live : hosts.test);
}

export function openHttp(
  context: AdapterContext,
  connection: ProcessorConnection,
  settings: HttpSettings,
): ProcessorHttp {
  return new ProcessorHttp({
    processor: settings.processor,
    baseUrl: baseUrlOf(connection, settings.hosts),
    headers: settings.headers,
    guard: context.guards?.for(
      settings.processor,
      connection.account.uid,
      settings.perSecond,
      settings.budget,
    ),
    logger: context.logger?.child({ account: connection.account.uid }),
    secrets: secretValues(connection.credentials),
  });
}

/**
 * The account's credentials read with the adapter's schema. Credentials that do not fit were refused at
 * connect (checkCredentials); meeting them here means they were stored some other way: permanent.
 */
export function readCredentials<Schema extends z.ZodType>(
  processor: string,
  schema: Schema,
  connection: ProcessorConnection,
): z.infer<Schema> {
  const problem = credentialProblem(schema, connection.credentials);
  if (problem !== null) {
    throw new ProcessorError(processor, `The account's credentials are unusable: ${problem}.`, {
      retryable: false,
    });
  }
  return schema.parse(JSON.parse(connection.credentials as string));
}

/** What is wrong with credentials for `schema`, in words for the operator who gave them; null if nothing. */
export function credentialProblem(schema: z.ZodType, credentials: string | null): string | null {
  if (credentials === null) return 'credentials are required (--credentials-file)';
  let parsed: unknown;
  try {
    parsed = JSON.parse(credentials);
  } catch {
    return 'the credentials file is not JSON';
  }
  const checked = schema.safeParse(parsed);
  if (checked.success) return null;
  const issue = checked.error.issues[0];
  return `${issue?.path.join('.') || 'credentials'}: ${issue?.message ?? 'invalid'}`;
}

/**
 * Every string in the credentials document, and the Basic credentials any two of them make (an answer
 * may echo the Authorization header): cut out of anything we show of a processor's answer.
 */
export function secretValues(credentials: string | null): string[] {
  if (credentials === null) return [];
  const found: string[] = [];
  const walk = (value: unknown) => {
    if (typeof value === 'string' && value.length >= 6) found.push(value);
    else if (value && typeof value === 'object') for (const inner of Object.values(value)) walk(inner);
  };
  try {
    walk(JSON.parse(credentials));
  } catch {
    found.push(credentials);
  }
  const strings = [...found];
  for (const user of strings) {
    found.push(Buffer.from(`${user}:`).toString('base64'));
    for (const password of strings) {
      if (user !== password) found.push(Buffer.from(`${user}:${password}`).toString('base64'));
    }
  }
  // Longest first, so a secret inside another is not cut out of it first.
  return found.sort((a, b) => b.length - a.length);
}
