import { Navigate, type RouteObject } from 'react-router'
import { Layout } from './ui/Layout'
import { LinksPage } from './links/LinksPage'
import { LinkEditPage } from './links/LinkEditPage'
import { LinkAnalyticsPage } from './analytics/LinkAnalyticsPage'
import { QrPage } from './qr/QrPage'
import { QrDetailPage } from './qr/QrDetailPage'
import { DomainsPage } from './domains/DomainsPage'
import { CampaignsPage } from './campaigns/CampaignsPage'
import { ChannelsPage } from './channels/ChannelsPage'
import { ChannelPage } from './channels/ChannelPage'
import { PixelsPage } from './pixels/PixelsPage'
import { PagesPage } from './pages/PagesPage'
import { WebhooksPage } from './webhooks/WebhooksPage'
import { ImportExportPage } from './webhooks/ImportExportPage'
import { AccountPage } from './account/AccountPage'
import { UsersPage } from './admin/UsersPage'
import { PlansPage } from './admin/PlansPage'
import { BlocklistPage } from './admin/BlocklistPage'
import { NotFoundPage } from './ui/NotFoundPage'

/** The one route table, like app.ts's register list. Paths are under /dashboard (the router's basename). */
export const routes: RouteObject[] = [
  {
    element: <Layout />,
    children: [
      { index: true, element: <Navigate to="/links" replace /> },
      { path: 'links', element: <LinksPage /> },
      { path: 'links/:id', element: <LinkAnalyticsPage /> },
      { path: 'links/:id/edit', element: <LinkEditPage /> },
      { path: 'qr', element: <QrPage /> },
      { path: 'qr/:id', element: <QrDetailPage /> },
      { path: 'domains', element: <DomainsPage /> },
      { path: 'campaigns', element: <CampaignsPage /> },
      { path: 'channels', element: <ChannelsPage /> },
      { path: 'channels/:id', element: <ChannelPage /> },
      { path: 'pixels', element: <PixelsPage /> },
      { path: 'pages', element: <PagesPage /> },
      { path: 'webhooks', element: <WebhooksPage /> },
      { path: 'import-export', element: <ImportExportPage /> },
      { path: 'account', element: <AccountPage /> },
      { path: 'admin/users', element: <UsersPage /> },
      { path: 'admin/plans', element: <PlansPage /> },
      { path: 'admin/blocklist', element: <BlocklistPage /> },
      { path: '*', element: <NotFoundPage /> },
    ],
  },
]
