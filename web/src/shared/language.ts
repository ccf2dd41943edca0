// The one rule that turns language tags (a stored choice, ?lang=, LIFF, the browser's, an i18n
// instance's) into one of the languages a surface offers; the console, the mission page and the
// error words all resolve through it (docs/i18n.md).

/**
 * A language tag as one of `offered`: the primary subtag, case and `_` ignored (ko-KR, KO_kr -> ko).
 * Chinese is offered only as Traditional (zh-TW): zh-Hant, zh-TW, zh-HK and zh-MO are it; plain zh,
 * zh-CN and zh-Hans are not. Undefined when the tag is none of `offered`.
 */
export function matchLanguage<L extends string>(
  tag: string | null | undefined,
  offered: readonly L[],
): L | undefined {
  const lower = (tag ?? '').trim().toLowerCase().replaceAll('_', '-');
  if (lower === '') return undefined;
  const [primary, ...rest] = lower.split('-');
  if (primary === 'zh') {
    const traditional = rest.some((s) => s === 'hant' || s === 'tw' || s === 'hk' || s === 'mo');
    return traditional ? offered.find((l) => l === 'zh-TW') : undefined;
  }
  return offered.find((l) => l === primary);
}

/** The first of `tags` (most preferred first) that is one of `offered`, else `fallback`. */
export function firstOfferedLanguage<L extends string>(
  tags: ReadonlyArray<string | null | undefined>,
  offered: readonly L[],
  fallback: L,
): L {
  for (const tag of tags) {
    const language = matchLanguage(tag, offered);
    if (language !== undefined) return language;
  }
  return fallback;
}
