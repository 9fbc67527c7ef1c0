import { useCallback, useEffect, useRef, useState } from 'react';

/**
 * Loads a screen's data when it mounts and whenever `load` changes (pass a useCallback), keeps
 * only the newest answer, and lets the screen reload or replace the data. A failed load keeps the
 * previous data: the HTTP client has already told the person what went wrong.
 */
export function useLoad<T>(load: () => Promise<T>) {
  const [data, setData] = useState<T>();
  const [loading, setLoading] = useState(true);
  const generation = useRef(0);

  const reload = useCallback(() => {
    const mine = ++generation.current;
    setLoading(true);
    load()
      .then((value) => {
        if (generation.current === mine) setData(value);
      })
      .catch(() => {
        // Shown by the HTTP client; the previous data stays.
      })
      .finally(() => {
        if (generation.current === mine) setLoading(false);
      });
  }, [load]);

  useEffect(() => {
    reload();
    return () => {
      generation.current++;
    };
  }, [reload]);

  return { data, setData, loading, reload };
}
