import { ArrowLeftOutlined } from '@ant-design/icons';
import { Button, Card, Result, Skeleton } from 'antd';
import type { ReactNode } from 'react';
import { Link, useNavigate } from 'react-router';

/** The way back to the list, above a detail screen. */
export function BackButton({ to, children }: { to: string; children: ReactNode }) {
  const navigate = useNavigate();
  return (
    <div>
      <Button
        type="link"
        icon={<ArrowLeftOutlined />}
        style={{ paddingInline: 0 }}
        onClick={() => navigate(to)}
      >
        {children}
      </Button>
    </div>
  );
}

/**
 * A detail screen with nothing to show: still loading (a skeleton), no id asked for (`info`) or
 * none the company has (`404`), with the way back to the list.
 */
export function DetailMissing({
  loading = false,
  status,
  title,
  backTo,
  backLabel,
}: {
  loading?: boolean;
  status: 'info' | '404';
  title: string;
  backTo: string;
  backLabel: string;
}) {
  if (loading) {
    return (
      <Card>
        <Skeleton active avatar paragraph={{ rows: 6 }} />
      </Card>
    );
  }
  return (
    <Result
      status={status}
      title={title}
      extra={
        <Link to={backTo}>
          <Button type="primary">{backLabel}</Button>
        </Link>
      }
    />
  );
}
