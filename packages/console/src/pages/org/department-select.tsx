import { TreeSelect } from 'antd';
import { useMemo } from 'react';
import { type DepartmentOption, departmentOptions } from './department-tree.ts';
import type { Department } from './org-types.ts';

type Props = {
  tree: Department | undefined;
  loading?: boolean;
  placeholder?: string;
  /** Options to use instead of the whole tree (a move picker disables some). */
  options?: DepartmentOption[];
  id?: string;
  style?: React.CSSProperties;
  'aria-label'?: string;
} & (
  | { multiple: true; value?: string[]; onChange?(value: string[]): void }
  | { multiple?: false; value?: string | null; onChange?(value: string | undefined): void }
);

/** Picks one or several departments from the company's tree (search by name). */
export function DepartmentSelect(props: Props) {
  const { tree, loading, placeholder, options, multiple, id, style } = props;
  const treeData = useMemo(() => options ?? (tree ? departmentOptions(tree) : []), [options, tree]);
  return (
    <TreeSelect
      id={id}
      aria-label={props['aria-label']}
      style={style}
      treeData={treeData}
      value={props.value ?? undefined}
      onChange={(value) => (props.onChange as ((v: unknown) => void) | undefined)?.(value ?? undefined)}
      multiple={multiple}
      treeCheckable={false}
      allowClear
      showSearch={{ treeNodeFilterProp: 'title' }}
      treeDefaultExpandAll
      loading={loading}
      placeholder={placeholder}
      popupMatchSelectWidth={false}
      maxTagCount="responsive"
    />
  );
}
