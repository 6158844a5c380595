// The tracer's name and version. A constant, not a read of package.json: it works from a bundle too;
// package-version.test.ts keeps it equal to package.json's.
export const PACKAGE_NAME = '@plant-store/storage-postgres';
export const PACKAGE_VERSION = '2.2.0';
