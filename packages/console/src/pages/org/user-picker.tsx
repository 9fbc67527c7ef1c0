import { Select } from 'antd';
import { useEffect, useRef, useState } from 'react';
import { useConsole } from '../../app/console-context.ts';
import type { OrgUser } from './org-types.ts';
import { displayName } from './user-status.ts';

interface Option {
  value: string;
  label: string;
}

const optionOf = (user: OrgUser): Option => ({
  value: user.userId,
  label: displayName(user) === user.username ? user.username : `${displayName(user)} (${user.username})`,
});

const SEARCH_DELAY_MS = 300;

type Props = {
  placeholder?: string;
  id?: string;
  'aria-label'?: string;
  /** Users already chosen elsewhere, to name the current value before any search. */
  known?: Option[];
  /** Users that cannot be picked (already members). */
  exclude?: ReadonlySet<string>;
} & (
  | { multiple: true; value?: string[]; onChange?(value: string[]): void }
  | { multiple?: false; value?: string | null; onChange?(value: string | null): void }
);

/** Finds users of the company by name, username, email or phone (searched on the server). */
export function UserPicker(props: Props) {
  const { callApi } = useConsole();
  const [options, setOptions] = useState<Option[]>(props.known ?? []);
  const [loading, setLoading] = useState(false);
  const generation = useRef(0);
  const timer = useRef<ReturnType<typeof setTimeout>>(undefined);

  const search = (keyword: string) => {
    clearTimeout(timer.current);
    timer.current = setTimeout(async () => {
      const mine = ++generation.current;
      setLoading(true);
      try {
        const { list } = await callApi(
          '/api/v1/manage/user/list',
          {
            keyword: keyword.trim() || undefined,
            page: 1,
            pageSize: 20,
            sortBy: 'username',
            sortOrder: 'asc',
          },
          { silent: true },
        );
        if (generation.current === mine) setOptions(list.map(optionOf));
      } catch {
        // A failed search leaves the previous options.
      } finally {
        if (generation.current === mine) setLoading(false);
      }
    }, SEARCH_DELAY_MS);
  };

  // biome-ignore lint/correctness/useExhaustiveDependencies: the first options are loaded once.
  useEffect(() => {
    search('');
    return () => clearTimeout(timer.current);
  }, []);

  const known = props.known ?? [];
  const merged = [...known, ...options.filter((option) => !known.some((k) => k.value === option.value))];
  const shown = merged.map((option) => ({ ...option, disabled: props.exclude?.has(option.value) }));

  return (
    <Select
      id={props.id}
      aria-label={props['aria-label']}
      mode={props.multiple ? 'multiple' : undefined}
      value={props.value ?? undefined}
      onChange={(value) => (props.onChange as ((v: unknown) => void) | undefined)?.(value ?? null)}
      options={shown}
      showSearch={{ filterOption: false, onSearch: search }}
      loading={loading}
      allowClear
      placeholder={props.placeholder}
      style={{ width: '100%' }}
      maxTagCount="responsive"
    />
  );
}
