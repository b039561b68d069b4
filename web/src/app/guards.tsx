import { Navigate, Outlet, useLocation } from 'react-router';
import { Forbidden } from '../features/misc/Forbidden';
import { useAccess } from './hooks';
import { useAppSelector } from './store';

/** Where a visitor without a stored user goes: /login, saying so when the session expired. */
function ToLogin() {
  const location = useLocation();
  const expired = useAppSelector((state) => state.session.expired);
  return <Navigate to={expired ? '/login?expired=true' : '/login'} replace state={{ from: location.pathname + location.search }} />;
}

/** Routes that need a stored user: without one, the client goes to /login. */
export function RequireLogin() {
  const { signedIn } = useAccess();
  if (!signedIn) return <ToLogin />;
  return <Outlet />;
}

/** Admin screens (role >= 10). */
export function RequireAdmin() {
  const { signedIn, isAdmin } = useAccess();
  if (!signedIn) return <ToLogin />;
  if (!isAdmin) return <Forbidden />;
  return <Outlet />;
}

/** Super-admin screens (role >= 100). */
export function RequireRoot() {
  const { signedIn, isRoot } = useAccess();
  if (!signedIn) return <ToLogin />;
  if (!isRoot) return <Forbidden />;
  return <Outlet />;
}
