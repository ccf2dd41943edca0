// Placeholder until the page is built.
export function DashboardPage() {
  return <h1>Dashboard</h1>;
}
