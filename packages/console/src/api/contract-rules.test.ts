import { company } from '@tessera/contract';
import { USERNAME_PATTERN, userLimits } from '@tessera/contract/constants';
import type { TFunction } from 'i18next';
import { describe, expect, it } from 'vitest';
import { usernameRules } from '../pages/org/user-form-rules.ts';

/**
 * The console's form rules check what the calls' schemas check, without zod: the username rule
 * (USERNAME_PATTERN) and the contract's `username` schema agree on every sample, and the user
 * forms' validator refuses exactly what the server refuses.
 */

const samples: [string, boolean][] = [
  ['alice', true],
  ['Alice.Wu_2-x', true],
  ['alice@contoso.com', true],
  ['Alice.Wu@Contoso.COM', true],
  ['alice@sub.contoso-eu.example', true],
  ['a@b', true],
  ['alice@', false],
  ['@contoso.com', false],
  ['alice@@contoso.com', false],
  ['alice@contoso@com', false],
  ['alice@contoso_com', false],
  ['alice@-contoso.com', false],
  ['alice@contoso.com.', false],
  ['alice smith', false],
  ['.alice', false],
  ['alice!', false],
  [`${'a'.repeat(54)}@contoso.com`, false],
];

const t = ((key: string) => key) as unknown as TFunction;

async function formAccepts(value: string) {
  const rule = usernameRules(t)[1] as { validator: (rule: unknown, value: string) => Promise<void> };
  return rule.validator({}, value).then(
    () => true,
    () => false,
  );
}

describe('the username rule, in the console and in the contract', () => {
  it.each(samples)('%s: %s', async (value, ok) => {
    const byContract = company.username.safeParse(value).success;
    expect(byContract).toBe(ok);
    expect(USERNAME_PATTERN.test(value) && value.length <= userLimits.usernameMax).toBe(ok);
    expect(await formAccepts(value)).toBe(ok);
  });
});
