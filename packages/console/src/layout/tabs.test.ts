import { describe, expect, it } from 'vitest';
import { addTab, closeTab, type VisitedTab } from './tabs.ts';

const dashboard: VisitedTab = { path: '/dashboard', title: 'route.dashboard', pinned: true };
const settings: VisitedTab = { path: '/setting/basic-set', title: 'route.companySettings', pinned: false };
const license: VisitedTab = { path: '/setting/license', title: 'route.license', pinned: false };

describe('tags view', () => {
  it('adds each visited page once', () => {
    const tabs = addTab(addTab([dashboard], settings), settings);
    expect(tabs.map((tab) => tab.path)).toEqual(['/dashboard', '/setting/basic-set']);
  });

  it('never closes the pinned dashboard', () => {
    expect(closeTab([dashboard, settings], '/dashboard', '/dashboard')).toEqual({
      tabs: [dashboard, settings],
    });
  });

  it('closes a tab in the background without moving', () => {
    expect(closeTab([dashboard, settings, license], '/setting/basic-set', '/setting/license')).toEqual({
      tabs: [dashboard, license],
    });
  });

  it('moves to the neighbour when the open page closes', () => {
    expect(closeTab([dashboard, settings, license], '/setting/basic-set', '/setting/basic-set').next).toBe(
      '/setting/license',
    );
    expect(closeTab([dashboard, settings, license], '/setting/license', '/setting/license').next).toBe(
      '/setting/basic-set',
    );
  });
});
