// `--import ./src/telemetry/register.ts` (npm start, npm run worker): starts tracing before the
// application's modules load, when an OTLP endpoint is configured. Otherwise it loads nothing of
// OpenTelemetry and the hooks stay no-ops. A bad OTEL_* variable stops start-up naming it.
import { loadConfigOrExit } from '../config.ts';

const { tracing } = loadConfigOrExit();
if (tracing !== undefined) {
  const { startTracing } = await import('./tracing.ts');
  startTracing(tracing);
}
