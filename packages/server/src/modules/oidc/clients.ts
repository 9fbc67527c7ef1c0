import type { TesseraAppClient } from '../app/app-clients.ts';

export type { TesseraAppClient };

type ClientLike = { [key: string]: unknown } | undefined;

/** Tessera's settings of an application's client, when the client is an application. */
export const appOf = (client: ClientLike): TesseraAppClient | undefined =>
  client?.tessera_app as TesseraAppClient | undefined;

/** Tessera's own clients (the consoles, the user centre): neither an application nor an access account. */
export const isTesseraClient = (client: ClientLike): boolean =>
  Boolean(client) && !appOf(client) && !client?.tessera_api_account;
