const suffixes = [
  { value: 1e18, symbol: 'E' },
  { value: 1e15, symbol: 'P' },
  { value: 1e12, symbol: 'T' },
  { value: 1e9, symbol: 'G' },
  { value: 1e6, symbol: 'M' },
  { value: 1e3, symbol: 'k' },
] as const;

/**
 * Spec §9: 1 500 → '1.5k', 2 000 000 → '2M' (suffixes k, M, G, T, P, E at powers of 1000) with
 * at most `digits` decimals and no trailing zeros. Below 1000 the number is returned as it is.
 */
export function formatNumberSuffix(num: number, digits = 1): string {
  const sign = num < 0 ? '-' : '';
  const abs = Math.abs(num);
  for (const { value, symbol } of suffixes) {
    if (abs >= value) {
      const scaled = (abs / value).toFixed(digits).replace(/\.0+$|(\.\d*[1-9])0+$/, '$1');
      return `${sign}${scaled}${symbol}`;
    }
  }
  return String(num);
}

/** Spec §9 thousands separators: 1234567.89 → '1,234,567.89'; not a number → '0'. */
export function formatThousands(num: number | string): string {
  const value = Number(num);
  const text = Number.isFinite(value) ? String(value) : '0';
  return text.replace(/^-?\d+/, (whole) => whole.replace(/\B(?=(\d{3})+$)/g, ','));
}
