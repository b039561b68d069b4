import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { createBrowserRouter, RouterProvider } from 'react-router';
import { AppProviders } from './app/AppProviders';
import { setNavigate } from './app/navigation';
import { routes } from './app/routes';
import { createStore } from './app/store';
import { StatusLoader } from './features/status/StatusLoader';
import './styles.css';

const store = createStore();
const router = createBrowserRouter(routes);
setNavigate((to, options) => void router.navigate(to, options));

createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <AppProviders store={store}>
      <StatusLoader />
      <RouterProvider router={router} />
    </AppProviders>
  </StrictMode>,
);
