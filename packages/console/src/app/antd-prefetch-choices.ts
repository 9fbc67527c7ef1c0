/** The shared antd choice components, fetched after app/antd-prefetch-display.ts (see app/antd-prefetch.ts). */
export { Checkbox, Radio, Select } from 'antd';
