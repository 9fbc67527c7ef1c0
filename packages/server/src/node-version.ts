import { readFileSync } from 'node:fs';

/**
 * The Node.js versions Tessera supports are those of `engines.node` in the root package.json.
 * The check understands the forms a range there takes: comparators (`>=20.19`, `<25`, `20.19.1`),
 * caret ranges (`^22.12`), several comparators that must all hold (`>=20.19 <21`), and
 * alternatives (`^20.19 || >=22.12`). This file is loaded before anything else of the server, so
 * it uses nothing that an older Node lacks.
 */

type Version = [number, number, number];

const parse = (text: string): Version | undefined => {
  const match = /^v?(\d+)(?:\.(\d+))?(?:\.(\d+))?$/.exec(text.trim());
  if (!match) return undefined;
  return [Number(match[1]), Number(match[2] ?? 0), Number(match[3] ?? 0)];
};

const compare = (a: Version, b: Version): number => a[0] - b[0] || a[1] - b[1] || a[2] - b[2];

/** Whether `version` satisfies one comparator; undefined for a form this check does not know. */
function satisfiesComparator(version: Version, comparator: string): boolean | undefined {
  const match = /^(>=|<=|>|<|=|\^)?\s*(.+)$/.exec(comparator);
  const bound = match && parse(match[2] as string);
  if (!match || !bound) return undefined;
  const order = compare(version, bound);
  switch (match[1]) {
    case '>=':
      return order >= 0;
    case '>':
      return order > 0;
    case '<=':
      return order <= 0;
    case '<':
      return order < 0;
    case '^':
      return order >= 0 && version[0] === bound[0];
    default:
      return order === 0;
  }
}

/**
 * Whether `version` (e.g. process.versions.node) is in `range`; undefined when the range has a
 * form this check does not understand (then nobody is refused).
 */
export function nodeVersionSatisfies(version: string, range: string): boolean | undefined {
  const current = parse(version);
  if (!current) return undefined;
  let known = true;
  const satisfied = range.split('||').some((alternative) => {
    const comparators = alternative
      .trim()
      .replace(/(>=|<=|>|<|=|\^)\s+/g, '$1')
      .split(/\s+/);
    return comparators.every((comparator) => {
      const result = satisfiesComparator(current, comparator);
      if (result === undefined) known = false;
      return result ?? true;
    });
  });
  return known ? satisfied : undefined;
}

/** The supported range from the root package.json, if it can be read. */
export function supportedNodeRange(): string | undefined {
  try {
    const manifest = JSON.parse(readFileSync(new URL('../../../package.json', import.meta.url), 'utf8'));
    return typeof manifest.engines?.node === 'string' ? manifest.engines.node : undefined;
  } catch {
    return undefined;
  }
}

/** Why Node `version` cannot run the server, or undefined when it can (or `range` is unknown). */
export function nodeVersionProblem(version: string, range: string | undefined): string | undefined {
  if (!range || nodeVersionSatisfies(version, range) !== false) return undefined;
  return `Node.js ${version} is not supported; Tessera needs Node.js ${range} (package.json "engines").`;
}
