import { describe, expect, it } from 'vitest';
import { hashPassword, takingTurns, verifyPassword } from './password.ts';

describe('password hashes', () => {
  it('verify the right password only', async () => {
    const stored = await hashPassword('Right-Password-1');
    expect(stored).toMatch(/^\$argon2id\$v=19\$m=19456,t=2,p=1\$/);
    const results = await Promise.all(
      ['Right-Password-1', 'wrong', 'Right-Password-1', ''].map((p) => verifyPassword(stored, p)),
    );
    expect(results).toEqual([true, false, true, false]);
    expect(await verifyPassword('not a hash', 'Right-Password-1')).toBe(false);
  });
});

describe('takingTurns', () => {
  it('runs at most its limit at once, in order of arrival, and a failure ends its turn', async () => {
    const turns = takingTurns(2);
    let running = 0;
    let most = 0;
    const started: number[] = [];
    const releases: (() => void)[] = [];
    const work = (i: number) =>
      turns(async () => {
        started.push(i);
        running++;
        most = Math.max(most, running);
        await new Promise<void>((done) => releases.push(done));
        running--;
        if (i === 1) throw new Error('refused');
        return i;
      });
    const all = [0, 1, 2, 3, 4].map((i) => work(i).catch((error: Error) => error.message));
    // Let every call reach its turn or the queue.
    for (let round = 0; round < 5; round++) await Promise.resolve();
    expect(started).toEqual([0, 1]);
    while (releases.length) {
      releases.shift()?.();
      for (let round = 0; round < 5; round++) await Promise.resolve();
    }
    expect(await Promise.all(all)).toEqual([0, 'refused', 2, 3, 4]);
    expect(started).toEqual([0, 1, 2, 3, 4]);
    expect(most).toBe(2);
  });
});
