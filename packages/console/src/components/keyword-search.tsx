import { Input } from 'antd';
import { useState } from 'react';

/**
 * The search box of a list whose query lives in the address: it starts from the keyword there,
 * and searches (trimmed) on Enter, the button or clearing.
 */
export function KeywordSearch({
  keyword,
  placeholder,
  onSearch,
}: {
  keyword: string;
  placeholder: string;
  onSearch(keyword: string): void;
}) {
  const [value, setValue] = useState(keyword);
  return (
    <Input.Search
      allowClear
      value={value}
      onChange={(event) => setValue(event.target.value)}
      placeholder={placeholder}
      aria-label={placeholder}
      style={{ width: 280, maxWidth: '100%' }}
      onSearch={(text) => onSearch(text.trim())}
    />
  );
}
