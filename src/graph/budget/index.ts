export { QueryBudget } from './query-budget.ts';
export type { QueryBudgetOptions } from './query-budget.ts';
export { DEFAULT_BUDGET_LIMITS } from './budget-limits.ts';
export type { BudgetLimits } from './budget-limits.ts';
