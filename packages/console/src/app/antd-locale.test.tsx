import { render, screen } from '@testing-library/react';
import Button from 'antd/es/button';
import enUS from 'antd/es/locale/en_US';
import zhCN from 'antd/es/locale/zh_CN';
import { describe, expect, it } from 'vitest';
import { AntdLocale } from './antd-locale.tsx';

describe('<AntdLocale> (issue 35 item 18)', () => {
  it('keeps two-character Chinese button labels as written', () => {
    render(
      <AntdLocale locale={zhCN}>
        <Button>删除</Button>
        <Button danger>禁用</Button>
      </AntdLocale>,
    );
    expect(screen.getByRole('button', { name: '删除' }).textContent).toBe('删除');
    expect(screen.getByRole('button', { name: '禁用' }).textContent).toBe('禁用');
  });

  it('is what keeps them: antd alone spaces them out', () => {
    render(<Button>启用</Button>);
    expect(screen.getByRole('button').textContent).toBe('启 用');
  });

  it('names a button done saving by its label alone: its spinner goes at once', () => {
    const { rerender } = render(
      <AntdLocale locale={enUS}>
        <Button type="primary" loading>
          Add
        </Button>
      </AntdLocale>,
    );
    expect(screen.getByRole('button', { name: 'loading Add' })).toBeTruthy();
    rerender(
      <AntdLocale locale={enUS}>
        <Button type="primary">Add</Button>
      </AntdLocale>,
    );
    expect(screen.getByRole('button', { name: 'Add' }).querySelector('[aria-label=loading]')).toBeNull();
  });
});
