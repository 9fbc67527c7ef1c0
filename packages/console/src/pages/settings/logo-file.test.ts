import { describe, expect, it } from 'vitest';
import { logoProblem } from './logo-file.ts';

describe('logoProblem (png, jpeg, svg or webp, at most 1 MiB)', () => {
  it('accepts the four image types up to 1 MiB', () => {
    for (const type of ['image/png', 'image/jpeg', 'image/svg+xml', 'image/webp']) {
      expect(logoProblem({ type, size: 1024 * 1024 })).toBeUndefined();
    }
  });

  it('refuses other types and larger files', () => {
    expect(logoProblem({ type: 'image/gif', size: 10 })).toBe('settings.logoWrongType');
    expect(logoProblem({ type: '', size: 10 })).toBe('settings.logoWrongType');
    expect(logoProblem({ type: 'image/png', size: 1024 * 1024 + 1 })).toBe('settings.logoTooLarge');
  });
});
