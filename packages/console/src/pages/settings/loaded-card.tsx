import { Card, Skeleton, Typography } from 'antd';
import type { ReactNode } from 'react';
import { useLoad } from '../../lib/use-load.ts';

/**
 * A settings card whose content needs the settings loaded first: its title and explanation,
 * a skeleton while loading, then `children` with the settings and a way to replace them (with
 * what a save answered).
 */
export function LoadedCard<T>({
  title,
  intro,
  testId,
  load,
  children,
}: {
  title: string;
  intro: string;
  testId: string;
  /** Stable (useCallback): a new function loads again. */
  load: () => Promise<T>;
  children(data: T, replace: (data: T) => void): ReactNode;
}) {
  const loaded = useLoad(load);
  return (
    <Card title={title} data-testid={testId}>
      <Typography.Paragraph type="secondary">{intro}</Typography.Paragraph>
      {loaded.data ? (
        children(loaded.data, loaded.setData)
      ) : (
        <Skeleton active loading={loaded.loading} paragraph={{ rows: 4 }} />
      )}
    </Card>
  );
}

/** The layout of a settings card's form: labels on the left on a wide screen. */
export const settingsFormLayout = (labelWidth: number) =>
  ({
    layout: 'horizontal',
    labelCol: { flex: `${labelWidth}px` },
    labelWrap: true,
    wrapperCol: { flex: 'auto' },
    style: { maxWidth: 760 },
  }) as const;
