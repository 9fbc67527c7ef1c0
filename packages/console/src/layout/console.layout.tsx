import { Grid, Layout } from 'antd';
import { Outlet } from 'react-router';
import { TopBar } from './top-bar.tsx';
import { useDocumentTitle } from './use-document-title.ts';

/** Top bar and main area. The sidebar, breadcrumbs and tabs come with the full shell. */
export function ConsoleLayout() {
  useDocumentTitle();
  const narrow = !(Grid.useBreakpoint().sm ?? true);
  return (
    <Layout style={{ minHeight: '100vh' }}>
      <TopBar />
      <Layout.Content style={{ padding: narrow ? 12 : 24 }}>
        <Outlet />
      </Layout.Content>
    </Layout>
  );
}
