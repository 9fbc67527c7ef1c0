import { describe, expect, it } from 'vitest';
import { nodeVersionProblem, nodeVersionSatisfies, supportedNodeRange } from './node-version.ts';

describe('the supported Node.js versions', () => {
  it('are read from the root package.json', () => {
    expect(supportedNodeRange()).toBe('>=20.19');
  });

  it('refuse an older Node with a line that names the range, and accept the supported ones', () => {
    expect(nodeVersionProblem('20.18.3', '>=20.19')).toBe(
      'Node.js 20.18.3 is not supported; Tessera needs Node.js >=20.19 (package.json "engines").',
    );
    expect(nodeVersionProblem('18.20.8', '>=20.19')).toMatch(/not supported/);
    for (const version of ['20.19.0', '20.20.2', '22.12.0', '24.1.0']) {
      expect(nodeVersionProblem(version, '>=20.19')).toBeUndefined();
    }
  });

  it('understands caret ranges, upper bounds and alternatives', () => {
    const range = '^20.19 || >=22.12 <25';
    expect(nodeVersionSatisfies('20.19.1', range)).toBe(true);
    expect(nodeVersionSatisfies('21.7.0', range)).toBe(false);
    expect(nodeVersionSatisfies('22.11.0', range)).toBe(false);
    expect(nodeVersionSatisfies('24.3.0', range)).toBe(true);
    expect(nodeVersionSatisfies('25.0.0', range)).toBe(false);
    expect(nodeVersionSatisfies('20.19.0', '>= 20.19.0')).toBe(true);
  });

  it('refuses nobody when the range has a form it does not know', () => {
    expect(nodeVersionSatisfies('20.19.0', '20.x')).toBeUndefined();
    expect(nodeVersionProblem('16.0.0', '20.x')).toBeUndefined();
    expect(nodeVersionProblem('16.0.0', undefined)).toBeUndefined();
  });
});
