/**
 * The antd components most screens share. The first screen does not use them; the session root
 * fetches this chunk when the browser is idle after the first paint, so opening another screen
 * then downloads only what is particular to it (scripts/check-size.ts charges this chunk, and
 * each screen for what it adds on top of it).
 */
export { Button, Flex, Form, Input, Space, Tooltip } from 'antd';
/** The second and third parts, kept apart so that each download stays under the lazy-chunk budget. */
export const displayComponents = () => import('./antd-prefetch-display.ts');
export const choiceComponents = () => import('./antd-prefetch-choices.ts');
