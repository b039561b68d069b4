import { Navigate, Outlet, useLocation } from 'react-router';
import { Forbidden } from '../features/misc/Forbidden';
import { useAccess } from './hooks';

/** Routes that need a stored user: without one, the client goes to /login. */
export function RequireLogin() {
  const { signedIn } = useAccess();
  const location = useLocation();
  if (!signedIn) return <Navigate to="/login" replace state={{ from: location.pathname + location.search }} />;
  return <Outlet />;
}

/** Admin screens (role >= 10). */
export function RequireAdmin() {
  const { signedIn, isAdmin } = useAccess();
  const location = useLocation();
  if (!signedIn) return <Navigate to="/login" replace state={{ from: location.pathname + location.search }} />;
  if (!isAdmin) return <Forbidden />;
  return <Outlet />;
}

/** Super-admin screens (role >= 100). */
export function RequireRoot() {
  const { signedIn, isRoot } = useAccess();
  const location = useLocation();
  if (!signedIn) return <Navigate to="/login" replace state={{ from: location.pathname + location.search }} />;
  if (!isRoot) return <Forbidden />;
  return <Outlet />;
}
