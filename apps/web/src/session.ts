/** Who is signed in, as the server says (`me`); shared by every page through a context. */
import { createContext } from 'preact';
import { useContext } from 'preact/hooks';
import type { ResultOf } from './graphql.ts';
import type { MeQuery } from './operations.ts';

export type Me = NonNullable<ResultOf<typeof MeQuery>['me']>;

export interface Session {
  me: Me | null;
  setMe(me: Me | null): void;
  /** Reads `me` again (after verifying, for example). */
  refresh(): Promise<void>;
}

export const SessionContext = createContext<Session>({ me: null, setMe: () => {}, refresh: async () => {} });
export const useSession = () => useContext(SessionContext);
