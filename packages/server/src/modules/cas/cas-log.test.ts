import { describe, expect, it } from 'vitest';
import { redactUrl } from '../../http/request-log.ts';

/** CAS tickets are secrets: the request log never shows them (issue 30). */
describe('the request log of CAS addresses', () => {
  it.each([
    [
      '/cas/c1/serviceValidate?service=https%3A%2F%2Foa.example.com%2F&ticket=ST-abc',
      '/cas/c1/serviceValidate?service=https%3A%2F%2Foa.example.com%2F&ticket=[redacted]',
    ],
    [
      '/cas/c1/proxy?pgt=PGT-abc&targetService=https%3A%2F%2Fb.example.com%2F',
      '/cas/c1/proxy?pgt=[redacted]&targetService=https%3A%2F%2Fb.example.com%2F',
    ],
    ['/oa/pgt?pgtId=PGT-abc&pgtIou=PGTIOU-def', '/oa/pgt?pgtId=[redacted]&pgtIou=[redacted]'],
    ['/cas/callback?code=abc&state=def', '/cas/callback?code=[redacted]&state=[redacted]'],
  ])('%s', (url, logged) => {
    expect(redactUrl(url)).toBe(logged);
  });
});
