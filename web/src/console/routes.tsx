// The console's pages: address pattern, title (a translation key) and, for sections, a place in
// the navigation.
import type { ReactNode } from 'react';
import { DashboardPage } from './pages/DashboardPage.tsx';
import { PartnersPage } from './pages/PartnersPage.tsx';
import { PartnerPage } from './pages/PartnerPage.tsx';
import { PromotionsPage } from './pages/PromotionsPage.tsx';
import { PromotionPage } from './pages/PromotionPage.tsx';
import { AssetsPage } from './pages/AssetsPage.tsx';
import { ChainPage } from './pages/chain/ChainPage.tsx';
import { BudgetsPage } from './pages/BudgetsPage.tsx';
import { BudgetPage } from './pages/BudgetPage.tsx';
import { ClaimsPage } from './pages/ClaimsPage.tsx';
import { DrawsPage } from './pages/DrawsPage.tsx';
import { WebhooksPage } from './pages/webhooks/WebhooksPage.tsx';
import { UsersPage } from './pages/UsersPage.tsx';
import { CredentialsPage } from './pages/CredentialsPage.tsx';
import { AuditPage } from './pages/AuditPage.tsx';
import { SharedAddressesPage } from './pages/SharedAddressesPage.tsx';

export interface Route {
  pattern: string;
  /** Translation key of the page's title. */
  title: string;
  /** Shown in the navigation (under its title). */
  nav?: boolean;
  /** Only for OWNER credentials (the API refuses the others anyway). */
  ownerOnly?: boolean;
  render(params: Record<string, string>): ReactNode;
}

export const ROUTES: Route[] = [
  { pattern: '/console', title: 'nav.dashboard', nav: true, render: () => <DashboardPage /> },
  { pattern: '/console/partners', title: 'nav.partners', nav: true, render: () => <PartnersPage /> },
  { pattern: '/console/partners/:id', title: 'nav.partner', render: (p) => <PartnerPage id={p.id ?? ''} /> },
  { pattern: '/console/promotions', title: 'nav.promotions', nav: true, render: () => <PromotionsPage /> },
  {
    pattern: '/console/promotions/:id',
    title: 'nav.promotion',
    render: (p) => <PromotionPage id={p.id ?? ''} />,
  },
  { pattern: '/console/assets', title: 'nav.assets', nav: true, render: () => <AssetsPage /> },
  { pattern: '/console/budgets', title: 'nav.budgets', nav: true, render: () => <BudgetsPage /> },
  // [chain payout]
  { pattern: '/console/chain', title: 'nav.chain', nav: true, render: () => <ChainPage /> },
  { pattern: '/console/budgets/:id', title: 'nav.budget', render: (p) => <BudgetPage id={p.id ?? ''} /> },
  { pattern: '/console/claims', title: 'nav.claims', nav: true, render: () => <ClaimsPage /> },
  { pattern: '/console/draws', title: 'nav.draws', nav: true, render: () => <DrawsPage /> },
  { pattern: '/console/users', title: 'nav.users', nav: true, render: () => <UsersPage /> },
  {
    pattern: '/console/shared-addresses',
    title: 'nav.sharedAddresses',
    nav: true,
    render: () => <SharedAddressesPage />,
  },
  { pattern: '/console/webhooks', title: 'nav.webhooks', nav: true, render: () => <WebhooksPage /> },
  { pattern: '/console/audit', title: 'nav.audit', nav: true, render: () => <AuditPage /> },
  {
    pattern: '/console/credentials',
    title: 'nav.credentials',
    nav: true,
    ownerOnly: true,
    render: () => <CredentialsPage />,
  },
];
