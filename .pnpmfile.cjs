// openapi-typescript (packages/client's generator) builds its output with the TypeScript 5 compiler
// API, which TypeScript 7 (the workspace's type checker, a native binary) no longer ships. It would
// take TypeScript 7 as its peer; it gets TypeScript 5 as a dependency of its own instead.
module.exports = {
  hooks: {
    readPackage(pkg) {
      if (pkg.name === 'openapi-typescript') {
        delete pkg.peerDependencies?.typescript;
        pkg.dependencies = { ...pkg.dependencies, typescript: '5.9.3' };
      }
      return pkg;
    },
  },
};
