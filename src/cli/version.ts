/** What `toolgraph --version` and `secret-manager --version` print (package.json's version). */
export const TOOLGRAPH_VERSION = '0.1.0';
