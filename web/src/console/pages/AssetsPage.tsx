// Placeholder until the page is built.
export function AssetsPage() {
  return <h1>Assets</h1>;
}
