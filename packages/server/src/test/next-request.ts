import { expect } from 'vitest';
import type { TesseraApp } from '../app.ts';
import { csrfOf, decodeEntities, postForm, signInToPortal } from './browser-flow.ts';
import { activeSyncPath, type PhoneProfile, syncBody } from './phone.ts';

/**
 * Runs `read` over and over from `readers` concurrent loops until `stop` is called: requests that
 * fill a cache while a change is being made (answers are not checked).
 */
export function keepReading(readers: number, read: () => Promise<unknown>) {
  let running = true;
  const loops = Array.from({ length: readers }, async () => {
    while (running) {
      await read().catch(() => undefined);
      // A read answered from memory alone must not keep the change from running.
      await new Promise((resolve) => setImmediate(resolve));
    }
  });
  return async () => {
    running = false;
    await Promise.all(loops);
  };
}

/**
 * Makes each change and asks at once, `rounds` times, while `readers` loops ask the same
 * question; answers the rounds whose next answer was not the expected one (so a failure shows
 * how often the cache answered from before the change).
 */
export async function changeThenAsk<A>(options: {
  rounds: number;
  readers: number;
  ask: () => Promise<A>;
  steps: readonly { change: () => Promise<unknown>; expected: A }[];
}) {
  const stale: string[] = [];
  const stop = keepReading(options.readers, options.ask);
  try {
    for (let round = 0; round < options.rounds; round++) {
      for (const [index, step] of options.steps.entries()) {
        await step.change();
        const answer = await options.ask();
        if (answer !== step.expected) stale.push(`round ${round}, step ${index}: ${String(answer)}`);
      }
    }
  } finally {
    await stop();
  }
  return stale;
}

/** The device password its person sees once in the user centre. */
export async function devicePasswordShownTo(
  baseUrl: string,
  person: { username: string; password: string },
  deviceRowId: string,
) {
  const { jar, page } = await signInToPortal(baseUrl, person.username, person.password);
  const { html: shown } = await postForm(jar, `${baseUrl}/portal/account/devices/reveal`, {
    csrf: csrfOf(page.html),
    deviceId: deviceRowId,
  });
  const password = /data-device-password="([^"]+)"/.exec(shown)?.[1];
  expect(password).toBeDefined();
  return decodeEntities(password ?? '');
}

/**
 * The status of a phone's Sync, sent in-process: it reaches the agent's decision without waiting
 * for the network, as a request already read does on a busy server (the moment a notice that
 * comes only through the listening connection has not been read yet).
 */
export async function syncStatus(
  ctx: { tessera: TesseraApp },
  phone: PhoneProfile,
  credentials: { user: string; password: string },
) {
  const answer = await ctx.tessera.app.inject({
    method: 'POST',
    url: activeSyncPath(phone, 'Sync', credentials.user),
    headers: {
      'user-agent': phone.userAgent,
      'ms-asprotocolversion': '16.1',
      'x-ms-policykey': '0',
      'content-type': 'application/vnd.ms-sync.wbxml',
      authorization: `Basic ${Buffer.from(`${credentials.user}:${credentials.password}`).toString('base64')}`,
    },
    payload: syncBody(),
  });
  return answer.statusCode;
}
