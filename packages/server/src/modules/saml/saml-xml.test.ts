import { describe, expect, it } from 'vitest';
import { checkXmlShape, MESSAGE_LIMITS, parseXml, SamlInputError, textOf } from './saml-xml.ts';

/** Untrusted XML (issue 19): refused by its shape before the DOM parser spends time on it. */
const problemOf = (run: () => unknown) => {
  try {
    run();
  } catch (error) {
    return error instanceof SamlInputError ? error.problem : String(error);
  }
  return null;
};

describe('the shape of untrusted XML', () => {
  it('refuses a deep nest and a flood of elements, within the byte limit', () => {
    const deep = `${'<a>'.repeat(5000)}${'</a>'.repeat(5000)}`;
    expect(deep.length).toBeLessThan(MESSAGE_LIMITS.maxBytes);
    expect(problemOf(() => parseXml(deep))).toBe('too_large');
    const flood = `<r>${'<e/>'.repeat(2000)}</r>`;
    expect(problemOf(() => parseXml(flood))).toBe('too_large');
  });

  it('counts neither comments, CDATA nor ">" inside attribute values', () => {
    const text = `<r a="x>y"><!-- ${'<e>'.repeat(400)} --><![CDATA[${'<e>'.repeat(400)}]]><e b='>'/></r>`;
    expect(() => checkXmlShape(text, MESSAGE_LIMITS)).not.toThrow();
    expect(parseXml(text).documentElement?.localName).toBe('r');
  });

  it('refuses document type declarations and comments inside simple text', () => {
    expect(problemOf(() => parseXml('<!DOCTYPE r><r/>'))).toBe('dtd');
    const doc = parseXml('<n>admin<!---->.evil</n>');
    expect(problemOf(() => textOf(doc.documentElement as never))).toBe('malformed');
  });
});
