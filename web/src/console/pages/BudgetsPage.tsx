// Placeholder until the page is built.
export function BudgetsPage() {
  return <h1>Budgets</h1>;
}
