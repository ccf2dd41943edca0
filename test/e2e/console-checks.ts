// Checks the console's browser tests run on each page: no sideways panning, every action button on
// screen, and axe-core's WCAG A/AA rules.
import { createRequire } from 'node:module';
import type { Page } from 'playwright-core';

/** Every page of the console (the ids of a partner, promotion and budget to show). */
export function consolePages(ids: {
  partnerId: string;
  promotionId: string;
  dailyPromotionId: string;
  budgetId: string;
}): string[] {
  return [
    '/console',
    '/console/partners',
    `/console/partners/${ids.partnerId}`,
    '/console/promotions',
    `/console/promotions/${ids.promotionId}`,
    `/console/promotions/${ids.dailyPromotionId}`,
    '/console/assets',
    '/console/budgets',
    `/console/budgets/${ids.budgetId}`,
    '/console/claims',
    '/console/draws',
    '/console/chain',
    '/console/users',
    `/console/users?partnerId=${ids.partnerId}&partnerUid=mina`,
    '/console/webhooks',
    '/console/audit',
    '/console/credentials',
  ];
}

/**
 * What is wrong with the page's layout at its current size: the document wider than the window (it
 * pans sideways), or a button or link inside <main> that is drawn but not inside the window's width.
 */
export async function layoutProblems(page: Page): Promise<string[]> {
  return page.evaluate(`(() => {
    const problems = [];
    const width = window.innerWidth;
    const scrollWidth = document.documentElement.scrollWidth;
    if (scrollWidth > width) problems.push('page is ' + scrollWidth + ' px wide in a ' + width + ' px window');
    for (const el of document.querySelectorAll('main button, main a, main summary')) {
      const r = el.getBoundingClientRect();
      if (r.width === 0 || r.height === 0) continue;
      if (r.left < -0.5 || r.right > width + 0.5) {
        problems.push('"' + (el.getAttribute('aria-label') || el.textContent || '').trim().slice(0, 60) +
          '" at ' + Math.round(r.left) + '..' + Math.round(r.right) + ' px');
      }
    }
    return problems;
  })()`);
}

const AXE_SCRIPT = createRequire(import.meta.url).resolve('axe-core/axe.min.js');

/** axe-core's WCAG 2.0/2.1 A and AA rules on the page as it is; the violations, described. */
export async function accessibilityViolations(page: Page): Promise<string[]> {
  await page.addScriptTag({ path: AXE_SCRIPT });
  return page.evaluate<string[]>(`axe
    .run(document, { runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'] } })
    .then((result) => result.violations.map((v) => v.impact + ' ' + v.id + ': ' + v.nodes.map((n) => n.target.join(' ')).join(', ')))`);
}
