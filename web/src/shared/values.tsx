// How both pages show long values: an amount from its asset's decimals in the reader's locale (every
// digit a click away), and an address or hash shortened to fit a phone (0x1234…abcd) with the whole
// value one tap away (copy) and, when the network has an explorer, a link to it.
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { amountText } from './format.ts';
import { sharedWordsFor } from './shared-words.ts';

/** The page's language for the shared components (each page provides its own i18next instance). */
export function useSharedWords() {
  const { i18n } = useTranslation();
  const lang = i18n.resolvedLanguage ?? i18n.language;
  return { words: sharedWordsFor(lang), lang };
}

/**
 * An amount (whole units, a decimal string) and its symbol. When the short form cut digits off, it is
 * a button that shows every digit (and back).
 */
export function Amount({
  value,
  decimals,
  symbol,
  testId,
}: {
  value: string;
  decimals: number;
  symbol?: string | undefined;
  testId?: string;
}) {
  const { words, lang } = useSharedWords();
  const [expanded, setExpanded] = useState(false);
  const text = amountText(value, decimals, lang);
  const shown = expanded ? text.full : text.short;
  const unit = symbol ? <span className="amount-symbol"> {symbol}</span> : null;
  if (!text.cut) {
    return (
      <span className="amount" data-testid={testId} data-amount={value}>
        <bdi>{shown}</bdi>
        {unit}
      </span>
    );
  }
  return (
    <span className="amount" data-testid={testId} data-amount={value}>
      <button
        type="button"
        className="amount-toggle"
        aria-expanded={expanded}
        title={expanded ? words.showShort : `${text.full} · ${words.showAll}`}
        onClick={() => setExpanded((e) => !e)}
      >
        <bdi>{shown}</bdi>
        {expanded ? null : <span aria-hidden="true">…</span>}
      </button>
      {unit}
    </span>
  );
}

/** 0x1234…abcd: the first 6 and last 4 characters of a 0x value; short values unchanged. */
export function shortHex(value: string): string {
  return value.length > 14 ? `${value.slice(0, 6)}…${value.slice(-4)}` : value;
}

/**
 * An address or a transaction hash, shortened, with its whole value in the title, a copy button and,
 * when `href` is given, a link (to the network's explorer) opening in a new tab.
 */
export function HexValue({
  value,
  href,
  name,
  testId,
}: {
  value: string;
  href?: string | null | undefined;
  /** What it is, for the copy button's accessible name ("address", "transaction"). */
  name: string;
  testId?: string;
}) {
  const { words } = useSharedWords();
  const [copied, setCopied] = useState<'yes' | 'failed' | undefined>(undefined);
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(value);
      setCopied('yes');
    } catch {
      setCopied('failed');
    }
  };
  const text = <code title={value}>{shortHex(value)}</code>;
  return (
    <span className="hex-value" data-testid={testId} data-value={value}>
      {href ? (
        <a href={href} target="_blank" rel="noreferrer">
          {text}
        </a>
      ) : (
        text
      )}
      <button
        type="button"
        className="copy-button"
        aria-label={`${words.copyWhat} ${name}`}
        onClick={() => void copy()}
      >
        {copied === 'yes' ? words.copied : words.copy}
      </button>
      <span role="status" className="visually-hidden">
        {copied === 'yes' ? words.copied : copied === 'failed' ? words.copyFailed : ''}
      </span>
      {copied === 'failed' ? <span className="copy-fallback">{value}</span> : null}
    </span>
  );
}

/** The short form of amounts as text (option labels, chart summaries), in the page's language. */
export function useAmountText(): (value: string, decimals: number, symbol?: string) => string {
  const { lang } = useSharedWords();
  return (value, decimals, symbol) => {
    const { short, cut } = amountText(value, decimals, lang);
    return `${short}${cut ? '…' : ''}${symbol ? ` ${symbol}` : ''}`;
  };
}
