import { describe, expect, it } from 'vitest';
import { pickCompany } from './company-selection.ts';
import type { CompanyListItem } from './session-storage.ts';

const company = (companyId: string, name: string, isOwner = false): CompanyListItem => ({
  companyId,
  name,
  icon: null,
  isOwner,
});
const list = [company('c1', 'Alpha', true), company('c2', 'Beta'), company('c3', 'Beta')];

describe('pickCompany (spec §4 company selection)', () => {
  it('selects the first company when nothing is stored', () => {
    expect(pickCompany(list, { companyId: null, name: null })).toEqual(list[0]);
  });

  it('keeps the stored company when its name is in the list', () => {
    expect(pickCompany(list, { companyId: null, name: 'Beta' })).toEqual(list[1]);
  });

  it('selects the first company when the stored name is not in the list', () => {
    expect(pickCompany(list, { companyId: null, name: 'Gone Ltd' })).toEqual(list[0]);
  });

  it('tells apart two companies with the same name by the stored id', () => {
    expect(pickCompany(list, { companyId: 'c3', name: 'Beta' })).toEqual(list[2]);
  });

  it('falls back to the name when the stored id is no longer in the list', () => {
    expect(pickCompany(list, { companyId: 'c9', name: 'Beta' })).toEqual(list[1]);
  });

  it('selects nothing from an empty list', () => {
    expect(pickCompany([], { companyId: 'c1', name: 'Alpha' })).toBeUndefined();
  });
});
