// The "Preview" banner of the console and the mission page (docs/environments.md): shown when the
// deployment says it is preview (GET /v1/environment), so test data is never taken for live data.
// Worded for whoever reads the page (an end user on the mission page), in the page's language.
import { useEffect, useState } from 'react';
import { apiRequest } from './api.ts';
import { useSharedWords } from './values.tsx';

/** `operator`: the console's wording (which keys this deployment issues); `user`: the mission page's. */
export function EnvironmentBanner({ audience }: { audience: 'user' | 'operator' }) {
  const { words } = useSharedWords();
  const [environment, setEnvironment] = useState<'preview' | 'production' | undefined>(undefined);
  useEffect(() => {
    const controller = new AbortController();
    apiRequest<{ environment: 'preview' | 'production' }>('GET', '/v1/environment', {
      signal: controller.signal,
    })
      .then((answer) => setEnvironment(answer.environment))
      // No answer: show nothing rather than guess.
      .catch(() => undefined);
    return () => controller.abort();
  }, []);
  if (environment !== 'preview') return null;
  return (
    <div className="environment-banner" role="status" data-environment="preview">
      <strong>{words.previewTitle}</strong> —{' '}
      {audience === 'user' ? words.previewBody : words.previewOperator}
    </div>
  );
}
