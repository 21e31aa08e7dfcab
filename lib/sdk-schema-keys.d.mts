export function literalSchemaKeys(source: string): string;
export function sdkSchemaModules(nodeModules: string): string[];
export function rewriteSdkSchemas(nodeModules: string): number;
