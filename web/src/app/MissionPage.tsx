// Placeholder until the page is built.
export function MissionPage() {
  return <h1>My missions</h1>;
}
