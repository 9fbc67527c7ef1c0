/** Reading a list's query from the address: unknown or broken values fall back to the defaults. */

/** A positive whole number, or the fallback. */
export const positiveParam = (text: string | null, fallback: number) => {
  const value = Number(text);
  return Number.isInteger(value) && value > 0 ? value : fallback;
};

/** One of the allowed values, or undefined. */
export const oneOfParam = <T extends string>(values: readonly T[], text: string | null): T | undefined =>
  values.find((value) => value === text);

/** A page size the list offers, or the fallback. */
export const pageSizeParam = (text: string | null, sizes: readonly number[], fallback: number) => {
  const size = positiveParam(text, fallback);
  return sizes.includes(size) ? size : fallback;
};
