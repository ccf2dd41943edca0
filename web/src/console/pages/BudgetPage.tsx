// Placeholder until the page is built.
export function BudgetPage({ id }: { id: string }) {
  return <h1>Budget {id}</h1>;
}
