/**
 * Cuts a name to `max` characters and adds an ellipsis when it was longer (spec §2, §9).
 * Counts code points, so an emoji or a CJK supplementary character is never split in half.
 */
export function truncateName(name: string, max: number): string {
  const chars = Array.from(name);
  return chars.length > max ? `${chars.slice(0, max).join('')}…` : name;
}
