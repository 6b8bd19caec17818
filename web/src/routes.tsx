import type { ComponentType } from 'react'
import { Navigate, type RouteObject } from 'react-router'
import { Layout } from './ui/Layout'
import { LinksPage } from './links/LinksPage'
import { NotFoundPage } from './ui/NotFoundPage'
import { RouteError } from './ui/RouteError'
import { Loading } from './ui/parts'

/**
 * A page whose code loads when it is first opened: it and what only it uses (the chart library of
 * the statistics pages, the QR designer) are chunks of their own, so the first load of the
 * dashboard fetches the link list's code and not every page's.
 */
const page = <K extends string>(load: () => Promise<Record<K, ComponentType>>, name: K): Pick<RouteObject, 'lazy'> => ({
  lazy: async () => ({ Component: (await load())[name] }),
})

/** The one route table, like app.ts's register list. Paths are under /dashboard (the router's basename). */
export const routes: RouteObject[] = [
  {
    element: <Layout />,
    // a first load that opens a lazy page: index.html's loading line, until its code is in
    HydrateFallback: () => <Loading what="Loading the dashboard" className="boot-loading" />,
    // the layout itself failing: at least no developer screen
    errorElement: <RouteError />,
    children: [
      {
        // a page that fails (its chunk missing after an upgrade, the server down) shows inside the
        // layout, navigation and Sign out kept
        errorElement: <RouteError />,
        children: [
          { index: true, element: <Navigate to="/links" replace /> },
          { path: 'links', element: <LinksPage /> },
          { path: 'overview', ...page(() => import('./analytics/OverviewPage'), 'OverviewPage') },
          { path: 'links/:id', ...page(() => import('./analytics/LinkAnalyticsPage'), 'LinkAnalyticsPage') },
          { path: 'links/:id/edit', ...page(() => import('./links/LinkEditPage'), 'LinkEditPage') },
          { path: 'qr', ...page(() => import('./qr/QrPage'), 'QrPage') },
          { path: 'qr/:id', ...page(() => import('./qr/QrDetailPage'), 'QrDetailPage') },
          { path: 'domains', ...page(() => import('./domains/DomainsPage'), 'DomainsPage') },
          { path: 'campaigns', ...page(() => import('./campaigns/CampaignsPage'), 'CampaignsPage') },
          { path: 'channels', ...page(() => import('./channels/ChannelsPage'), 'ChannelsPage') },
          { path: 'channels/:id', ...page(() => import('./channels/ChannelPage'), 'ChannelPage') },
          { path: 'pixels', ...page(() => import('./pixels/PixelsPage'), 'PixelsPage') },
          { path: 'pages', ...page(() => import('./pages/PagesPage'), 'PagesPage') },
          { path: 'webhooks', ...page(() => import('./webhooks/WebhooksPage'), 'WebhooksPage') },
          { path: 'import-export', ...page(() => import('./webhooks/ImportExportPage'), 'ImportExportPage') },
          { path: 'account', ...page(() => import('./account/AccountPage'), 'AccountPage') },
          { path: 'admin/users', ...page(() => import('./admin/UsersPage'), 'UsersPage') },
          { path: 'admin/plans', ...page(() => import('./admin/PlansPage'), 'PlansPage') },
          { path: 'admin/blocklist', ...page(() => import('./admin/BlocklistPage'), 'BlocklistPage') },
          { path: '*', element: <NotFoundPage /> },
        ],
      },
    ],
  },
]
