// The instrumentation scope of this package's spans, as OpenTelemetry names it: the package's name and
// version. Constants, not a read of package.json, so that a bundle keeps them; traces.test.ts holds them
// to package.json.
export const PACKAGE_NAME = '@plant-store/webhooks';
export const PACKAGE_VERSION = '1.0.0';
