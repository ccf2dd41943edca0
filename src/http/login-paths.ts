// Paths of the browser login that the kernel treats specially (security headers for the LIFF page
// and the development provider's pages); the login capability (src/linking) serves them.
export const LIFF_PATH = '/v1/mission-users/auth/liff';
export const DEV_PROVIDER_PATH = '/dev-oidc';
