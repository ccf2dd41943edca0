// The "Preview" banner of the console and the mission page (docs/environments.md): shown when the
// deployment says it is preview (GET /v1/environment), so test data is never taken for live data.
import { useEffect, useState } from 'react';
import { apiRequest } from './api.ts';

export function EnvironmentBanner() {
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
      <strong>Preview</strong> — test environment: <code>mrk_test_</code> keys, no live rewards.
    </div>
  );
}
