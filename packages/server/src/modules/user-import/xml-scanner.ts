import { SheetProblem } from './sheet-problem.ts';

/**
 * A small streaming XML scanner for the parts of a workbook: elements and text, fed in pieces,
 * holding no more than one token at a time. It is strict where a hostile file would hurt: no
 * document type (so no entity definitions and no expansion), only the five predefined entities and
 * character references, a bounded nesting depth and a bounded token length. Anything else is
 * `import.unreadable`: Excel and other spreadsheet programs never write it.
 */

export interface XmlHandler {
  /** An element starts; `name` without its namespace prefix, `attributes` as written. */
  open(name: string, attributes: string): void;
  /** An element ends (also right after `open` for an empty element `<x/>`). */
  close(name: string): void;
  /** Text inside an element, entities decoded; one text node may come in several pieces. */
  text(text: string): void;
}

/** Nesting deeper than this is refused (a worksheet needs 5 or 6 levels). */
const MAX_DEPTH = 64;
/** A tag, comment, processing instruction or CDATA section longer than this is refused. */
const MAX_TOKEN_CHARS = 256 * 1024;
/** The longest entity reference (`&#x10FFFF;`). */
const MAX_ENTITY_CHARS = 10;

const unreadable = () => new SheetProblem('import.unreadable');
const NAME = /^[A-Za-z_][\w.:-]*$/;
const localName = (name: string) => name.slice(name.lastIndexOf(':') + 1);

const named: Record<string, string> = { lt: '<', gt: '>', amp: '&', quot: '"', apos: "'" };

function entity(reference: string): string {
  const known = named[reference];
  if (known !== undefined) return known;
  const code = /^#x[0-9a-fA-F]{1,6}$/.test(reference)
    ? Number.parseInt(reference.slice(2), 16)
    : /^#[0-9]{1,7}$/.test(reference)
      ? Number(reference.slice(1))
      : Number.NaN;
  if (!(code > 0 && code <= 0x10ffff) || (code >= 0xd800 && code <= 0xdfff)) throw unreadable();
  return String.fromCodePoint(code);
}

/** Text with its entity and character references replaced. */
function decodeXmlText(text: string): string {
  let amp = text.indexOf('&');
  if (amp < 0) return text;
  let out = '';
  let from = 0;
  while (amp >= 0) {
    const semi = text.indexOf(';', amp);
    if (semi < 0 || semi - amp > MAX_ENTITY_CHARS) throw unreadable();
    out += text.slice(from, amp) + entity(text.slice(amp + 1, semi));
    from = semi + 1;
    amp = text.indexOf('&', from);
  }
  return out + text.slice(from);
}

const attributePatterns = new Map<string, RegExp>();

/**
 * The value of an attribute of a start tag. `name` may be `*:local` for an attribute in any
 * namespace but xmlns (`r:id` of a sheet is written with whatever prefix the file declared).
 */
export function attribute(attributes: string, name: string): string | undefined {
  let pattern = attributePatterns.get(name);
  if (!pattern) {
    const key = name.startsWith('*:') ? `(?!xmlns:)[A-Za-z_][\\w.-]*:${name.slice(2)}` : name;
    pattern = new RegExp(`(?:^|\\s)${key}\\s*=\\s*(?:"([^"]*)"|'([^']*)')`);
    attributePatterns.set(name, pattern);
  }
  const match = pattern.exec(attributes);
  if (!match) return undefined;
  return decodeXmlText(match[1] ?? match[2] ?? '');
}

export class XmlScanner {
  private buffer = '';
  private readonly open: string[] = [];
  private rootSeen = false;

  constructor(private readonly handler: XmlHandler) {}

  write(chunk: string): void {
    const buffer = this.buffer ? this.buffer + chunk : chunk;
    let at = 0;
    while (at < buffer.length) {
      const lt = buffer.indexOf('<', at);
      if (lt !== at) {
        let stop = lt < 0 ? buffer.length : lt;
        if (lt < 0) {
          // Keep an entity reference cut by the end of the chunk for the next one.
          const amp = buffer.lastIndexOf('&');
          if (amp >= at && buffer.indexOf(';', amp) < 0) {
            if (buffer.length - amp > MAX_ENTITY_CHARS) throw unreadable();
            stop = amp;
          }
        }
        if (stop > at) this.emitText(buffer.slice(at, stop));
        at = stop;
        if (lt < 0) break;
      }
      const next = this.token(buffer, at);
      if (next < 0) {
        if (buffer.length - at > MAX_TOKEN_CHARS) throw unreadable();
        break;
      }
      at = next;
    }
    this.buffer = buffer.slice(at);
  }

  /** The part ended: it must have been one whole element. */
  end(): void {
    if (this.buffer.trim() || this.open.length || !this.rootSeen) throw unreadable();
  }

  private emitText(raw: string) {
    // Only whitespace may stand outside the root element.
    if (!this.open.length) {
      if (raw.trim()) throw unreadable();
      return;
    }
    this.handler.text(decodeXmlText(raw));
  }

  /** Reads the token at `at` (a '<'); returns where the next one starts, or -1 when it is cut. */
  private token(buffer: string, at: number): number {
    const second = buffer.charCodeAt(at + 1);
    if (Number.isNaN(second)) return -1;
    if (second === 0x21 /* ! */) return this.declaration(buffer, at);
    if (second === 0x3f /* ? */) {
      const end = buffer.indexOf('?>', at + 2);
      return end < 0 ? -1 : end + 2;
    }
    if (second === 0x2f /* / */) {
      const end = buffer.indexOf('>', at + 2);
      if (end < 0) return -1;
      const name = buffer.slice(at + 2, end).trim();
      if (this.open.pop() !== name) throw unreadable();
      this.handler.close(localName(name));
      return end + 1;
    }
    // A start tag: its end is the first '>' outside a quoted attribute value.
    let quote = 0;
    let end = at + 1;
    for (; end < buffer.length; end++) {
      const c = buffer.charCodeAt(end);
      if (quote) {
        if (c === quote) quote = 0;
      } else if (c === 0x22 || c === 0x27) quote = c;
      else if (c === 0x3e) break;
      else if (c === 0x3c) throw unreadable();
    }
    if (end >= buffer.length) return -1;
    const empty = buffer.charCodeAt(end - 1) === 0x2f;
    const tag = buffer.slice(at + 1, empty ? end - 1 : end);
    const space = tag.search(/\s/);
    const name = space < 0 ? tag : tag.slice(0, space);
    if (!NAME.test(name)) throw unreadable();
    if (!this.open.length) {
      if (this.rootSeen) throw unreadable();
      this.rootSeen = true;
    }
    const local = localName(name);
    if (!empty) {
      this.open.push(name);
      if (this.open.length > MAX_DEPTH) throw unreadable();
    }
    this.handler.open(local, space < 0 ? '' : tag.slice(space));
    if (empty) this.handler.close(local);
    return end + 1;
  }

  /** `<!--` comments and `<![CDATA[` sections; a document type (`<!DOCTYPE`, entities) is refused. */
  private declaration(buffer: string, at: number): number {
    const head = buffer.slice(at, at + 9);
    if (head.startsWith('<!--')) {
      const end = buffer.indexOf('-->', at + 4);
      return end < 0 ? -1 : end + 3;
    }
    if (head === '<![CDATA[') {
      const end = buffer.indexOf(']]>', at + 9);
      if (end < 0) return -1;
      if (!this.open.length) throw unreadable();
      this.handler.text(buffer.slice(at + 9, end));
      return end + 3;
    }
    // Still possibly the start of one of the two above.
    if (head.length < 9 && ('<![CDATA['.startsWith(head) || '<!--'.startsWith(head))) return -1;
    throw unreadable();
  }
}
