import type { SettingName } from '../config/index.ts';

/*
 * The settings each command reads, which are the flags it takes. A setting a command does not read
 * is not a flag of that command (commander refuses it, suggesting the nearest flag); every setting
 * still applies from its env var and config.json, as before. `serve`, `tools serve` and `config`
 * take every setting. A new setting that one of these commands reads belongs in its list here.
 */

/**
 * Opening the store as `serve` would: the adapter, where it keeps its data, whether to start over
 * lost records, the write and schema caps every batch is held to, and the level of its warnings.
 */
export const STORE_SETTINGS: readonly SettingName[] = ['persistence', 'dataDir', 'databaseUrl', 'databaseSchema', 'acceptDataLoss', 'writeMaxChanges', 'writeMaxBatchBytes',
  'graphMaxLabels', 'graphMaxEdgeTypes', 'graphMaxPropertiesPerLabel', 'graphMaxSchemaFields', 'graphMaxNameLength', 'logLevel'];

/** `cypher`: the store, and the execution budget of the statement. */
export const CYPHER_SETTINGS: readonly SettingName[] = [...STORE_SETTINGS, 'queryMaxRows', 'queryMaxResultBytes', 'queryTimeoutMs', 'queryMaxStallMs'];

/** `explain`: the store, and whether introspection fields may be explained. */
export const EXPLAIN_SETTINGS: readonly SettingName[] = [...STORE_SETTINGS, 'graphqlIntrospection'];

/** `schema search`: where the local server listens (the catalogue's default URL). */
export const CATALOGUE_SETTINGS: readonly SettingName[] = ['host', 'port'];

/** `schema get`: the catalogue, and the cache of verified schemas. */
export const SCHEMA_GET_SETTINGS: readonly SettingName[] = [...CATALOGUE_SETTINGS, 'cacheDir'];

/** `auth login`: the provider, the OAuth client, where token sets are kept, and the agents (their own provider, client and scopes). */
export const SIGN_IN_SETTINGS: readonly SettingName[] = ['oidcConfigUrl', 'oidcClientId', 'oidcClientSecret', 'stateDir', 'agents'];
