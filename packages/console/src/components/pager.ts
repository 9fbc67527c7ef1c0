/**
 * Page buttons to show: every page up to 7, else the first, the last and the current ±1 (the
 * first or last four near the ends) with gaps between.
 */
export function pageItems(page: number, pageCount: number): Array<number | 'gap'> {
  if (pageCount <= 7) return Array.from({ length: pageCount }, (_, i) => i + 1);
  const around = [page - 1, page, page + 1].filter((p) => p > 1 && p < pageCount);
  if (page <= 3) around.push(2, 3, 4);
  if (page >= pageCount - 2) around.push(pageCount - 3, pageCount - 2, pageCount - 1);
  const middle = [...new Set(around)].sort((a, b) => a - b);
  const out: Array<number | 'gap'> = [1];
  for (const p of middle) {
    const last = out.at(-1);
    // A gap never hides a single page: that page is shown instead.
    if (typeof last === 'number' && p === last + 2) out.push(last + 1);
    else if (typeof last === 'number' && p > last + 2) out.push('gap');
    out.push(p);
  }
  const lastMiddle = middle.at(-1) ?? 1;
  if (pageCount - lastMiddle === 2) out.push(pageCount - 1);
  else if (pageCount - lastMiddle > 2) out.push('gap');
  out.push(pageCount);
  return out;
}

export const pageCountOf = (total: number, pageSize: number) => Math.max(1, Math.ceil(total / pageSize));
