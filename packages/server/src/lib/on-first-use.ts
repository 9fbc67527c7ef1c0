/** A service whose every member is an async function (what onFirstUse can stand in for). */
type AsyncService = { [key: string]: (...args: never[]) => Promise<unknown> };

/**
 * Stands in for a service whose module is loaded, and the service made, at the first call of
 * one of its methods: for parts most installations use rarely (certificate authorities, keys
 * of UKEYs), whose libraries would otherwise lengthen every start. A failed load is tried again
 * at the next call. Only async methods can be deferred, which the type requires.
 */
export function onFirstUse<T extends AsyncService>(load: () => Promise<T>): T {
  let loading: Promise<T> | undefined;
  const service = () => {
    loading ??= load().catch((error: unknown) => {
      loading = undefined;
      throw error;
    });
    return loading;
  };
  const methods = new Map<string, (...args: never[]) => Promise<unknown>>();
  return new Proxy({} as T, {
    get(_, key) {
      // Not a thenable (await on the stand-in answers itself), and nothing but string names.
      if (typeof key !== 'string' || key === 'then') return undefined;
      let method = methods.get(key);
      if (!method) {
        method = async (...args: never[]) => {
          const loaded = await service();
          const member = loaded[key];
          if (typeof member !== 'function') throw new TypeError(`no method ${key}`);
          return member.apply(loaded, args);
        };
        methods.set(key, method);
      }
      return method;
    },
  });
}
