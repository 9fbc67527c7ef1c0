import { absolute, CookieJar, request } from './browser-flow.ts';

/**
 * A browser on two sites at once (an upstream identity provider and Tessera, on one host but
 * different ports): cookies are kept per origin, as two servers' same-named cookies must not
 * mix (a real browser separates them by host; tests give both servers the host localhost).
 */
export class TwoSiteBrowser {
  readonly jars = new Map<string, CookieJar>();

  jar(url: string): CookieJar {
    const origin = new URL(url).origin;
    let jar = this.jars.get(origin);
    if (!jar) {
      jar = new CookieJar();
      this.jars.set(origin, jar);
    }
    return jar;
  }

  fetch(url: string, init?: RequestInit) {
    return request(this.jar(url), url, init);
  }

  /**
   * Follows redirects from `url` until a page answers (its address, status and HTML) or the
   * browser would go to an address starting with `stopAt`.
   */
  async follow(url: string, stopAt: string, init?: RequestInit) {
    let current = url;
    let response = await this.fetch(url, init);
    for (let hop = 0; hop < 20; hop++) {
      if (response.status < 300 || response.status >= 400)
        return { url: current, status: response.status, html: await response.text(), stopped: undefined };
      current = absolute(current, response.headers.get('location'));
      if (current.startsWith(stopAt))
        return { url: current, status: 303, html: '', stopped: new URL(current) };
      response = await this.fetch(current);
    }
    throw new Error(`too many hops from ${url}`);
  }
}
