#!/usr/bin/env node
import { runSecretManager } from './commands/secret-manager-program.ts';

process.exitCode = await runSecretManager(process.argv.slice(2));
