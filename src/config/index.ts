export { SETTINGS } from './settings.ts';
export type { SettingDef, SettingName, ResolvedValues } from './settings.ts';
export { resolveConfig } from './resolve-config.ts';
export type { ResolvedConfig } from './resolve-config.ts';
export { describeConfig, defaultLabelOf, formatConfigTable } from './describe-config.ts';
export { resolveAgents, unconfiguredAgent, AGENT_NAME_PATTERN, AGENT_PATTERNS, CONSENT_OWNERS, RESERVED_AGENT_NAMES } from './agent-settings.ts';
export type { AgentSettings, AgentsSettings, AgentPattern, ConsentOwner } from './agent-settings.ts';
