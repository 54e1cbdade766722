import { SETTINGS } from '../../config/index.ts';
import { ToolgraphError } from '../../errors/index.ts';

/**
 * The refusal of a list field that was given no page (`first`/`limit`, or a connection's
 * `first`/`last`) and holds more than the list limit: a request for "all of them" is served up to
 * the limit and refused beyond it, never silently cut. Part of the execution budget (it stops the
 * request, before the list is built), with the same details shape as the other budget limits.
 */
export function overListLimit(field: string, max: number): ToolgraphError {
  const setting = SETTINGS.graphqlListLimit.env!;
  return new ToolgraphError('TG_QUERY_BUDGET_EXCEEDED',
    `${field} has more than ${max} items and no first/limit: a list without a page returns at most ${max} items, its list limit (${setting}). Ask for a page (first: n, or a <Label>Connection page) or raise the limit.`,
    { details: { limit: 'listLimit', max, setting } });
}
