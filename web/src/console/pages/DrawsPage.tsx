// Placeholder until the page is built.
export function DrawsPage() {
  return <h1>Draws</h1>;
}
