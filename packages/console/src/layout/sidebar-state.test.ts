import { describe, expect, it } from 'vitest';
import { closesBySelf, deviceOf, initialOpened, readSidebarOpened, sidebarCookie } from './sidebar-state.ts';

describe('sidebar state (spec §3, §9)', () => {
  it('reads the sidebarStatus cookie as 1/0, open by default', () => {
    expect(readSidebarOpened('')).toBe(true);
    expect(readSidebarOpened('sidebarStatus=1')).toBe(true);
    expect(readSidebarOpened('lang=zh; sidebarStatus=0')).toBe(false);
  });

  it('writes 1 or 0 for the whole site', () => {
    expect(sidebarCookie(true)).toMatch(/^sidebarStatus=1; path=\/;/);
    expect(sidebarCookie(false)).toMatch(/^sidebarStatus=0; path=\/;/);
  });

  it('closes by itself below 992 px and is a drawer below 768 px', () => {
    expect(closesBySelf(991)).toBe(true);
    expect(closesBySelf(992)).toBe(false);
    expect(deviceOf(767)).toBe('mobile');
    expect(deviceOf(768)).toBe('desktop');
  });

  it('starts closed on narrow windows whatever the cookie says, else as the cookie says', () => {
    expect(initialOpened(1280, 'sidebarStatus=1')).toBe(true);
    expect(initialOpened(1280, 'sidebarStatus=0')).toBe(false);
    expect(initialOpened(900, 'sidebarStatus=1')).toBe(false);
    expect(initialOpened(390, '')).toBe(false);
  });
});
