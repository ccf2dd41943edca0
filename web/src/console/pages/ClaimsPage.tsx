// Placeholder until the page is built.
export function ClaimsPage() {
  return <h1>Claims</h1>;
}
