import type { ConsoleGrants, ConsoleVariant } from '@tessera/contract/shell-constants';
import { pickCompany } from './company-selection.ts';
import type { CompanyListItem, SessionStorageApi, TokenAnswer } from './session-storage.ts';

export interface SessionState {
  token: string | null;
  username: string;
  /** undefined: not loaded yet; null: the person belongs to no company. */
  companies: CompanyListItem[] | null | undefined;
  company: CompanyListItem | undefined;
  /**
   * What the person may do in the selected company's console (spec §4 guard step 2: the allowed
   * routes are built from it); undefined until the server has answered for that company.
   */
  grants: ConsoleGrants | undefined;
  /** The page is about to leave (sign-out or reload): the guard must not start anything new. */
  leaving: boolean;
}

/** The signed-in person, kept in memory for React and mirrored into browser storage. */
export function createSessionStore(variant: ConsoleVariant, storage: SessionStorageApi) {
  let state: SessionState = {
    token: storage.readToken(variant),
    username: storage.readUsername(),
    companies: undefined,
    company: undefined,
    grants: undefined,
    leaving: false,
  };
  const listeners = new Set<() => void>();
  const set = (patch: Partial<SessionState>) => {
    state = { ...state, ...patch };
    for (const listener of listeners) listener();
  };

  return {
    getState: (): SessionState => state,
    subscribe(listener: () => void) {
      listeners.add(listener);
      return () => {
        listeners.delete(listener);
      };
    },
    signedIn(answer: TokenAnswer) {
      storage.writeToken(answer, variant);
      set({
        token: answer.token,
        username: answer.username,
        companies: undefined,
        company: undefined,
        grants: undefined,
      });
    },
    /** The token was replaced: by a refresh here (`answer`), or in another tab (taken from storage). */
    tokenChanged(answer?: TokenAnswer) {
      if (answer) storage.writeToken(answer, variant);
      set({ token: storage.readToken(variant), username: storage.readUsername() });
    },
    /** Applies the company list; `preferredId` wins when it is in the list (a company just created). */
    companiesLoaded(list: CompanyListItem[] | null, preferredId?: string) {
      const companies = list && list.length > 0 ? list : null;
      const stored = preferredId ? { companyId: preferredId, name: null } : storage.readCompany();
      const company = companies ? pickCompany(companies, stored) : undefined;
      if (company) storage.writeCompany(company);
      const grants = company?.companyId === state.company?.companyId ? state.grants : undefined;
      set({ companies, company, grants });
    },
    /** The server's answer of what the person may do in `companyId` (ignored once another is selected). */
    grantsLoaded(companyId: string, grants: ConsoleGrants) {
      if (state.company?.companyId === companyId) set({ grants });
    },
    /** A company switch: its routes are built again from the new company's answer. */
    selectCompany(company: CompanyListItem) {
      storage.writeCompany(company);
      set({ company, grants: undefined });
    },
    /** A company was renamed or got a new logo: the list, the selection and storage follow. */
    companyChanged(companyId: string, patch: Partial<Pick<CompanyListItem, 'name' | 'icon'>>) {
      const companies = state.companies?.map((item) =>
        item.companyId === companyId ? { ...item, ...patch } : item,
      );
      const company = state.company?.companyId === companyId ? { ...state.company, ...patch } : state.company;
      if (company && company !== state.company) storage.writeCompany(company);
      set({ companies, company });
    },
    /** Forgets the session in storage and memory; the page is expected to navigate away. */
    leave() {
      storage.clear();
      set({ token: null, companies: undefined, company: undefined, grants: undefined, leaving: true });
    },
  };
}

export type SessionStore = ReturnType<typeof createSessionStore>;
