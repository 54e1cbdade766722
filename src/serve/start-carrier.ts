import type { ResolvedValues } from '../config/index.ts';
import { ToolgraphError } from '../errors/index.ts';
import { loadSignerKeys, NONCE_SPACE, REQUEST_ID_SPACE, startCarrier, StoreReplayLedger, type CarrierOptions, type RunningCarrier } from '../graph/carrier/index.ts';
import type { StateStore } from '../state/index.ts';
import type { GraphEngine } from '../graph/engine/index.ts';
import type { Logger } from '../log/index.ts';
import type { CarrierPorts } from './carrier-ports.ts';

type CarrierSettings = Pick<ResolvedValues, 'graphqlAddr' | 'graphqlMaxConnections' | 'graphqlMaxSessionSecs' | 'graphqlSignerJwks' | 'requestHeadTimeoutMs' | 'graphqlListLimit' | 'carrierMaxWork'>;

/**
 * The carrier's settings that can be checked before anything starts: with SERVICE_GRAPHQL_ADDR set,
 * the process must run the graph service the carrier streams from, and trusted signer keys must be
 * configured (there is no unsigned mode). `serve` calls this first, so a refusal comes before the
 * port is bound or the data directory is locked.
 */
export function requireCarrierSettings(values: CarrierSettings, runsGraph: boolean): void {
  if (values.graphqlAddr === undefined) return;
  if (!runsGraph) {
    throw new ToolgraphError('TG_CONFIG_INVALID', 'SERVICE_GRAPHQL_ADDR is set, but this process does not run the graph service the carrier streams from; include graph in --only.');
  }
  if (values.graphqlSignerJwks === undefined) {
    throw new ToolgraphError('TG_CONFIG_INVALID', 'SERVICE_GRAPHQL_SIGNER_JWKS is required when SERVICE_GRAPHQL_ADDR is set: the carrier has no unsigned mode (set SERVICE_GRAPHQL_SIGNER_JWKS, --graphql-signer-jwks or config key graphql_signer_jwks to a JWKS file or URL).', {
      details: { setting: 'graphqlSignerJwks' },
    });
  }
}

/**
 * Starts the subscription carrier when SERVICE_GRAPHQL_ADDR is set (it is off otherwise). Start-up
 * fails, naming what is missing, when the process does not run the graph service the carrier
 * streams from (and so has no ports), or when no trusted signer keys are configured: there is no
 * unsigned mode. Consumed nonces and request ids go to `state` (the configured state store).
 */
export async function startSubscriptionCarrier(values: CarrierSettings, engine: GraphEngine | undefined, ports: CarrierPorts | undefined, logger: Logger, state?: StateStore, onHandshake?: CarrierOptions['onHandshake']): Promise<RunningCarrier | undefined> {
  const address = values.graphqlAddr;
  if (address === undefined) return undefined;
  requireCarrierSettings(values, engine !== undefined);
  const signerJwks = values.graphqlSignerJwks;
  // requireCarrierSettings refused a missing engine or signer set; the ports come with the engine.
  if (engine === undefined || ports === undefined || signerJwks === undefined) throw new ToolgraphError('TG_INTERNAL', 'The carrier was started without its engine, ports or signer keys.');
  return startCarrier({
    host: address.host,
    port: address.port,
    graphs: engine,
    executor: ports.executor,
    access: ports.access,
    signerKeys: await loadSignerKeys(signerJwks),
    logger,
    maxConnections: values.graphqlMaxConnections,
    maxSessionSecs: values.graphqlMaxSessionSecs,
    // The executor's list limit (productCarrierPorts): what a nested list without a page is priced at.
    listLimit: values.graphqlListLimit,
    maxWork: values.carrierMaxWork,
    requestHeadTimeoutMs: values.requestHeadTimeoutMs,
    // Nonces and request ids live in the shared state store: a replay is refused by every replica, and after a restart.
    ...(onHandshake ? { onHandshake } : {}),
    ...(state ? { ledgers: { nonces: new StoreReplayLedger(state, NONCE_SPACE), requestIds: new StoreReplayLedger(state, REQUEST_ID_SPACE) } } : {}),
  });
}
