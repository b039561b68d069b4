/**
 * Shared pieces of the user page tests. Lookups go by text rather than by role on purpose:
 * computing accessible names over antd's table takes seconds per query in jsdom.
 */
import { fireEvent, screen } from '@testing-library/react';
import userEvent, { PointerEventsCheckLevel } from '@testing-library/user-event';
import { Role, type User } from '@aigw/contracts';
import { UsersPage } from '../src/features/users/UsersPage';
import type { RecordedCall } from './fake-api';
import { makeUser, renderPage } from './render';

export const admin = makeUser({ id: 1, username: 'root', role: Role.Root });

/** userEvent without the per-ancestor style checks (slow in jsdom) and without delays. */
export const setupUser = () => userEvent.setup({ pointerEventsCheck: PointerEventsCheckLevel.Never, delay: null });

/** A page answer of the list and search routes. */
export const userPage = (items: User[], total = items.length) => ({ items, total, page: 1, page_size: 10 });

export const queryOf = (call: RecordedCall) => Object.fromEntries(call.query);

/** /user and /user/edit/:id, both rendering the page, as the app's routes do. */
export function renderUsers(route = '/user') {
  return renderPage(<UsersPage />, {
    route,
    user: admin,
    routes: [
      { path: '/user', element: <UsersPage /> },
      { path: '/user/edit/:id', element: <UsersPage /> },
    ],
  });
}

/** Buttons under `root` whose text matches (antd spaces out two-character CJK labels). */
export function buttonsNamed(name: RegExp, root: ParentNode = document.body): HTMLButtonElement[] {
  return [...root.querySelectorAll('button')].filter((button) => name.test(button.textContent ?? ''));
}

export function buttonNamed(name: RegExp, root: ParentNode = document.body): HTMLButtonElement {
  const found = buttonsNamed(name, root);
  if (found.length !== 1) throw new Error(`expected one button named ${name}, found ${found.length}`);
  return found[0]!;
}

/** The table row holding a cell with exactly this text. */
export const rowOf = (text: string) => screen.getByText(text).closest('tr') as HTMLElement;
export const findRowOf = async (text: string) => (await screen.findByText(text)).closest('tr') as HTMLElement;

/** Opens an antd Select (by its input) and clicks the option with this title. */
export async function chooseOption(select: HTMLElement, title: string, user = setupUser()) {
  fireEvent.mouseDown(select);
  const options = await screen.findAllByTitle(title);
  await user.click(options.at(-1)!);
}

/** The open drawer with this title. */
export async function drawerTitled(title: string): Promise<HTMLElement> {
  const heading = await screen.findByText(title, { selector: '.ant-drawer-title' });
  return heading.closest('.ant-drawer') as HTMLElement;
}
