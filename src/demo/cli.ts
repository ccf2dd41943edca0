// `npm run demo`: seeds the demo campaign (seed.ts) into a running service through its operator API
// and prints how to start examples/partner-server against it. The partner's API key and webhook
// secret are printed here once, as the API shows them once; nothing is written to a file.
//   MRS_BASE_URL        the service (default http://localhost:8080)
//   MRS_ADMIN_SECRET    an OPERATOR or OWNER secret (the console's Credentials page), or ADMIN_TOKEN
//   PARTNER_SERVER_URL  where the example partner server will listen (default http://localhost:3000)
import { DEV_ASSET_ID } from '../chain/dev-network-store.ts';
import { partnerServerCommand, seedDemo } from './seed.ts';
import { patientOperatorCall, waitForAsset } from './patient-call.ts';

const baseUrl = (process.env.MRS_BASE_URL ?? 'http://localhost:8080').replace(/\/+$/, '');
const secret = process.env.MRS_ADMIN_SECRET ?? process.env.ADMIN_TOKEN;
if (!secret) {
  console.error(
    'set MRS_ADMIN_SECRET to an operator secret: in the console, Credentials > new credential (OPERATOR), or the ADMIN_TOKEN the service started with',
  );
  process.exit(1);
}
const partnerServerUrl = process.env.PARTNER_SERVER_URL ?? 'http://localhost:3000';

const onWait = (reason: string, ms: number) => console.error(`${reason}; asking again in ${ms / 1000} s`);
// A service just started may answer 503 for its first seconds (or not take connections yet):
// the call waits as its Retry-After says, for up to a minute (patient-call.ts).
const call = patientOperatorCall({ baseUrl, secret, patienceMs: 60_000, onWait });
// The development chain registers its token just after the service is ready: nothing is created
// before it is there, so an early run does not leave a partner without its campaign.
await waitForAsset(call, DEV_ASSET_ID, { patienceMs: 120_000, onWait });
const demo = await seedDemo(call, { partnerServerUrl });
const command = partnerServerCommand(baseUrl, partnerServerUrl, demo).replaceAll('\n', '\n  ');
console.log(`Demo campaign ready: partner ${demo.partnerId}, budget ${demo.budgetId} (funded on the dev chain),
missions ${demo.missionKeys.join(', ')}, webhook endpoint ${partnerServerUrl}/webhooks.

Start the example partner server from the repository root (the key and secret are shown only now):

  ${command}

Then open ${partnerServerUrl}/link?uid=alice`);
