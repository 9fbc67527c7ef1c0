/**
 * CAS applications (Apereo CAS Protocol 3.0): the values an application's CAS settings take,
 * their limits, and the rules of service URL patterns. Loaded by the console without zod.
 */

/**
 * How a service URL pattern matches: the whole URL (`exact`), a URL that starts with it at a
 * boundary (`prefix`: `https://oa.example.com/app` matches `/app/…` and `/app?…`, never
 * `/application`), or a regular expression the administrator chose explicitly (`regex`).
 */
export const casPatternKinds = ['exact', 'prefix', 'regex'] as const;
export type CasPatternKind = (typeof casPatternKinds)[number];

export interface CasServicePattern {
  kind: CasPatternKind;
  value: string;
}

/** What a CAS application may be told of the person (the sources of the OIDC claims). */
export const casAttributeSources = [
  'username',
  'name',
  'email',
  'phone',
  'departments',
  'permissions',
] as const;
export type CasAttributeSource = (typeof casAttributeSources)[number];

export const casLimits = {
  patternsMax: 20,
  patternMax: 2000,
  /** A service ticket's lifetime, seconds (the specification recommends no more than 5 minutes). */
  ticketTtlMin: 1,
  ticketTtlMax: 300,
  ticketTtlDefault: 10,
  /** A regular expression: at most this many open-ended repetitions (`*`, `+`, `{n,}`). */
  regexOpenRepeatsMax: 2,
} as const;

/** Why a service URL pattern is refused, or null. */
export type CasPatternProblem = 'url' | 'regex_syntax' | 'regex_anchors' | 'regex_unsafe' | null;

const isServiceUrl = (value: string) => {
  if (value !== value.trim() || /\s/.test(value) || value.includes('#')) return false;
  try {
    const url = new URL(value);
    return (url.protocol === 'https:' || url.protocol === 'http:') && !url.username && !url.password;
  } catch {
    return false;
  }
};

/**
 * Whether a regular expression could take super-linear time on a URL of up to 2000 characters:
 * backreferences and lookarounds are refused; a repeated group may hold neither a repetition nor
 * an alternative (`(a+)+`, `(a|a)*` backtrack exponentially); and at most two open-ended
 * repetitions in all (three, as in `.*x.*x.*`, already take seconds).
 */
export function casRegexUnsafe(source: string): boolean {
  if (/\\[1-9kK]|\(\?<?[=!]/.test(source)) return true;
  const groups: { repeats: boolean; alternates: boolean }[] = [];
  let openRepeats = 0;
  let lastGroup: { repeats: boolean; alternates: boolean } | null = null;
  for (let i = 0; i < source.length; i++) {
    const char = source[i];
    if (char === '\\') {
      i++;
      lastGroup = null;
      continue;
    }
    if (char === '[') {
      // A character class: up to its closing bracket (escapes inside skipped).
      for (i++; i < source.length && source[i] !== ']'; i++) if (source[i] === '\\') i++;
      lastGroup = null;
      continue;
    }
    if (char === '(') {
      groups.push({ repeats: false, alternates: false });
      lastGroup = null;
      continue;
    }
    if (char === ')') {
      lastGroup = groups.pop() ?? null;
      continue;
    }
    if (char === '|') {
      const top = groups[groups.length - 1];
      if (top) top.alternates = true;
      continue;
    }
    const open = char === '*' || char === '+' || (char === '{' && /^\{\d*,\}/.test(source.slice(i)));
    const bounded = char === '?' || (char === '{' && /^\{\d+(,\d+)?\}/.test(source.slice(i)));
    if (!open && !bounded) {
      lastGroup = null;
      continue;
    }
    if (char === '?' && source[i - 1] && /[*+?}]/.test(source[i - 1] as string)) continue; // lazy
    if (open) openRepeats++;
    if (lastGroup && (lastGroup.repeats || lastGroup.alternates) && (open || char === '{')) return true;
    for (const group of groups) group.repeats ||= open || char === '{';
    if (lastGroup) for (const group of groups) group.repeats ||= lastGroup.repeats;
    lastGroup = null;
  }
  return openRepeats > casLimits.regexOpenRepeatsMax;
}

/** What is wrong with a service URL pattern, or null when it can be saved. */
export function casPatternProblem(pattern: CasServicePattern): CasPatternProblem {
  if (pattern.kind !== 'regex') return isServiceUrl(pattern.value) ? null : 'url';
  try {
    new RegExp(pattern.value);
  } catch {
    return 'regex_syntax';
  }
  if (!pattern.value.startsWith('^') || !pattern.value.endsWith('$') || pattern.value.endsWith('\\$'))
    return 'regex_anchors';
  return casRegexUnsafe(pattern.value) ? 'regex_unsafe' : null;
}

/** Whether a service URL is one the pattern allows. */
export function casServiceMatches(pattern: CasServicePattern, service: string): boolean {
  if (service.length > casLimits.patternMax) return false;
  if (pattern.kind === 'exact') return service === pattern.value;
  if (pattern.kind === 'prefix') {
    if (!service.startsWith(pattern.value)) return false;
    if (service.length === pattern.value.length || pattern.value.endsWith('/')) return true;
    return ['/', '?'].includes(service[pattern.value.length] as string);
  }
  try {
    return new RegExp(pattern.value).test(service);
  } catch {
    return false;
  }
}
