import type { FormProps } from 'antd';

/**
 * The layout of the detail tabs' forms: labels beside the fields on wide screens (the field column
 * takes the rest of the row and may shrink, so wide groups wrap inside it), above them on narrow ones.
 */
export const detailFormLayout = (narrow: boolean, labelWidth: number): Partial<FormProps> =>
  narrow
    ? { layout: 'vertical' }
    : {
        layout: 'horizontal',
        labelCol: { flex: `${labelWidth}px` },
        labelWrap: true,
        wrapperCol: { flex: '1 1 0', style: { minWidth: 0 } },
      };
