// Operator roles in rank order: OWNER can do what OPERATOR can, OPERATOR what VIEWER can.
import type { AdminRole } from '../db/schema.ts';

const RANK: Record<AdminRole, number> = { VIEWER: 1, OPERATOR: 2, OWNER: 3 };

export function roleAtLeast(role: AdminRole, required: AdminRole): boolean {
  return RANK[role] >= RANK[required];
}
