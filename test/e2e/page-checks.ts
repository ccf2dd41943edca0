// Checks every page gets in the real-data browser tests (issue #31): nothing wider than the window,
// no text under 11 px, axe-core WCAG A/AA, no English catalog word on a page in another language,
// and a screenshot in docs/screenshots/.
import { createRequire } from 'node:module';
import type { Page } from 'playwright-core';

const AXE_SCRIPT = createRequire(import.meta.url).resolve('axe-core/axe.min.js');

export const PHONE = { width: 390, height: 844 };
export const DESKTOP = { width: 1280, height: 800 };
export const SHOTS = 'docs/screenshots';

/**
 * Elements whose right edge passes the window, outside any container that scrolls on purpose
 * (overflow-x auto/scroll: a table region); plus the page's own scroll width.
 */
export async function overflowing(page: Page): Promise<string[]> {
  // The window's width as set, not innerWidth: a phone (isMobile) widens its layout viewport to
  // content that overflows, and innerWidth with it, which would hide the very overflow looked for.
  const width = page.viewportSize()?.width ?? 0;
  return page.evaluate(`(() => {
    const width = ${width} || window.innerWidth;
    const found = [];
    if (document.documentElement.scrollWidth > width) found.push('page scrollWidth ' + document.documentElement.scrollWidth);
    const scrolls = (el) => { const o = getComputedStyle(el).overflowX; return o === 'auto' || o === 'scroll' || o === 'hidden'; };
    for (const el of document.body.querySelectorAll('*')) {
      const r = el.getBoundingClientRect();
      if (r.width === 0 || r.right <= width + 1) continue;
      let parent = el.parentElement, inScroller = false;
      while (parent && parent !== document.body) { if (scrolls(parent)) { inScroller = true; break; } parent = parent.parentElement; }
      if (inScroller) continue;
      if (getComputedStyle(el).position === 'fixed') continue;
      found.push(el.tagName.toLowerCase() + (el.className && typeof el.className === 'string' ? '.' + el.className.split(' ').join('.') : '') + ' right=' + Math.round(r.right) + ' "' + (el.textContent || '').slice(0, 40) + '"');
    }
    // Table regions that scroll on purpose must still fit the window themselves.
    for (const region of document.querySelectorAll('.table-scroll, [role="region"]')) {
      const r = region.getBoundingClientRect();
      if (r.right > width + 1) found.push('region right=' + Math.round(r.right));
    }
    return found.slice(0, 10);
  })()`);
}

/** Visible text set under 11 px. */
export async function tinyText(page: Page): Promise<string[]> {
  return page.evaluate(`(() => {
    const found = [];
    const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      const text = node.textContent.trim();
      const el = node.parentElement;
      if (!text || !el) continue;
      if (el.closest('.visually-hidden, [hidden], details:not([open]) > :not(summary)')) continue;
      const r = el.getBoundingClientRect();
      if (r.width === 0 || r.height === 0) continue;
      const size = parseFloat(getComputedStyle(el).fontSize);
      // SVG text is drawn scaled: measure what the reader sees.
      const svg = el.closest('svg');
      const scale = svg && svg.viewBox && svg.viewBox.baseVal && svg.viewBox.baseVal.width ? svg.getBoundingClientRect().width / svg.viewBox.baseVal.width : 1;
      if (size * scale < 11) found.push(Math.round(size * scale * 10) / 10 + 'px "' + text.slice(0, 30) + '"');
    }
    return found.slice(0, 10);
  })()`);
}

export async function accessibilityViolations(page: Page): Promise<string[]> {
  await page.addScriptTag({ path: AXE_SCRIPT });
  return page.evaluate<string[]>(`axe
    .run(document, { runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'] } })
    .then((result) => result.violations.map((v) => v.impact + ' ' + v.id + ': ' + v.nodes.map((n) => n.target.join(' ')).join(', ')))`);
}

/** Every string of a nested catalog, placeholders and ICU syntax removed. */
export function catalogStrings(catalog: unknown): string[] {
  if (typeof catalog === 'string') return [catalog];
  if (catalog && typeof catalog === 'object') return Object.values(catalog).flatMap(catalogStrings);
  return [];
}

/** The English words (4+ letters) of an English catalog that its translation does not also use. */
export function englishOnlyWords(english: string[], translated: string[]): Set<string> {
  const words = (texts: string[]) =>
    new Set(
      texts
        .join(' ')
        .replace(/\{[^}]*\}/g, ' ')
        .toLowerCase()
        .match(/[a-z]{4,}/g) ?? [],
    );
  const theirs = words(translated);
  return new Set([...words(english)].filter((w) => !theirs.has(w)));
}

/** English catalog words visible on the page (its innerText), except the data's own words. */
export async function untranslated(
  page: Page,
  englishWords: Set<string>,
  dataWords: string[],
): Promise<string[]> {
  const text = (await page.evaluate<string>('document.body.innerText')).toLowerCase();
  const allowed = new Set(
    dataWords
      .join(' ')
      .toLowerCase()
      .match(/[a-z]{4,}/g) ?? [],
  );
  return [...new Set(text.match(/[a-z]{4,}/g) ?? [])].filter((w) => englishWords.has(w) && !allowed.has(w));
}

/**
 * Every check above on the page as it is, each problem prefixed with `where`: nothing wider than the
 * window, no tiny text, axe clean and, for a page not in English (`englishWords` given), no English
 * catalog word but the data's own (`dataWords`).
 */
export async function pageProblems(
  page: Page,
  where: string,
  englishWords?: Set<string>,
  dataWords: string[] = [],
): Promise<string[]> {
  const problems: string[] = [];
  for (const o of await overflowing(page)) problems.push(`${where} overflow: ${o}`);
  for (const tiny of await tinyText(page)) problems.push(`${where} tiny: ${tiny}`);
  for (const v of await accessibilityViolations(page)) problems.push(`${where} axe: ${v}`);
  if (englishWords)
    for (const w of await untranslated(page, englishWords, dataWords))
      problems.push(`${where} english: ${w}`);
  return problems;
}
