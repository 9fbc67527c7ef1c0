import { render, screen, within } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { initI18n, loadPhrases } from '../../i18n/i18n.ts';
import type { OrgUser } from './org-types.ts';
import { renderWithConsole } from './test-services.tsx';
import { UserProfileCard } from './user-profile.card.tsx';

/** Issue 29: the user detail shows whether the person verified their email and phone. */
const user: OrgUser = {
  userId: 'u1',
  username: 'alice',
  name: 'Alice Liddell',
  nickname: null,
  email: 'alice@example.com',
  phone: '+8613800000001',
  emailVerifiedAt: '2026-11-01T08:00:00.000Z',
  phoneVerifiedAt: null,
  photo: null,
  status: 'enabled',
  role: 'member',
  isOwner: false,
  managed: true,
  mustChangePassword: false,
  loginCount: 3,
  lastLoginAt: null,
  failedCount: 0,
  lastFailedAt: null,
  lockedUntil: null,
  departments: [],
  createdAt: '2026-01-01T00:00:00.000Z',
};

const badges = () =>
  Array.from(document.querySelectorAll('[data-verified]')).map((tag) => [
    tag.getAttribute('data-verified'),
    tag.textContent,
  ]);

function renderCard(shown: OrgUser) {
  const setup = renderWithConsole(<UserProfileCard user={shown} onChange={() => {}} />, () => shown);
  render(setup.ui);
}

describe('<UserProfileCard> verified addresses', () => {
  beforeEach(async () => {
    initI18n('en');
    await loadPhrases(['org']);
  });
  afterEach(async () => {
    initI18n('en');
    await loadPhrases(['org']);
  });

  it('marks the email verified and the phone not, beside the fields the company edits', async () => {
    renderCard(user);
    await screen.findByDisplayValue('alice@example.com');
    expect(badges()).toEqual([
      ['yes', 'Verified'],
      ['no', 'Not verified'],
    ]);
  });

  it('shows the marks read-only for a person the company does not manage, and none for a missing address', async () => {
    renderCard({ ...user, managed: false, phone: null, emailVerifiedAt: null });
    const email = await screen.findByText('alice@example.com');
    expect(within(email.closest('td') ?? document.body).getByText('Not verified')).toBeTruthy();
    expect(badges()).toEqual([['no', 'Not verified']]);
  });

  it('speaks Chinese', async () => {
    initI18n('zh');
    await loadPhrases(['org']);
    renderCard(user);
    await screen.findByDisplayValue('alice@example.com');
    expect(badges()).toEqual([
      ['yes', '已验证'],
      ['no', '未验证'],
    ]);
  });
});
