// TypeScript 5, as the consumer project installs it: its compiler API type-checks the consumer and reads
// the imports of the packed files. (The workspace's own TypeScript 7 is a native binary with no such API.)
import { createRequire } from 'node:module';
import { join } from 'node:path';

interface SourceFile {
  readonly fileName: string;
}
interface Diagnostic {
  readonly file?: SourceFile;
}
interface Program {
  getSourceFiles(): readonly SourceFile[];
  getOptionsDiagnostics(): readonly Diagnostic[];
  getGlobalDiagnostics(): readonly Diagnostic[];
  getSyntacticDiagnostics(file: SourceFile): readonly Diagnostic[];
  getSemanticDiagnostics(file: SourceFile): readonly Diagnostic[];
  emit(file: SourceFile): { readonly emitSkipped: boolean; readonly diagnostics: readonly Diagnostic[] };
}
interface ParsedCommandLine {
  readonly fileNames: readonly string[];
  readonly options: Record<string, unknown>;
  readonly errors: readonly Diagnostic[];
}
interface FileReference {
  readonly fileName: string;
}
/** The little of TypeScript 5's compiler API used here. */
interface TypeScriptApi {
  readonly version: string;
  readonly sys: Record<string, unknown> & { getCurrentDirectory(): string; readonly newLine: string };
  getParsedCommandLineOfConfigFile(
    path: string,
    options: undefined,
    host: Record<string, unknown>,
  ): ParsedCommandLine | undefined;
  createProgram(rootNames: readonly string[], options: Record<string, unknown>): Program;
  formatDiagnostics(
    diagnostics: readonly Diagnostic[],
    host: { getCanonicalFileName(name: string): string; getCurrentDirectory(): string; getNewLine(): string },
  ): string;
  preProcessFile(
    text: string,
    readImportFiles: boolean,
    detectJavaScriptImports: boolean,
  ): {
    readonly importedFiles: readonly FileReference[];
    readonly typeReferenceDirectives: readonly FileReference[];
  };
}

export interface TypeScript5 {
  readonly version: string;
  /**
   * Type-checks the project at `dir` by its tsconfig.json and emits its JavaScript. Its own sources and the
   * declarations of `strictPackages` are checked in full (as skipLibCheck: false); other libraries are taken
   * as their authors ship them. Returns the formatted errors; empty when there are none.
   */
  compile(dir: string, strictPackages: readonly string[]): string;
  /** The module specifiers a file imports, statically or with import(), and its `/// <reference types>`. */
  importsOf(text: string): { readonly modules: string[]; readonly typeReferences: string[] };
}

export function loadTypeScript5(projectDir: string): TypeScript5 {
  const ts = createRequire(join(projectDir, 'package.json'))('typescript') as TypeScriptApi;
  if (!ts.version.startsWith('5.'))
    throw new Error(`the consumer project has TypeScript ${ts.version}, not 5.x`);
  const formatHost = {
    getCanonicalFileName: (name: string) => name,
    getCurrentDirectory: () => projectDir,
    getNewLine: () => '\n',
  };
  return {
    version: ts.version,
    compile(dir, strictPackages) {
      const config = ts.getParsedCommandLineOfConfigFile(join(dir, 'tsconfig.json'), undefined, {
        ...ts.sys,
        onUnRecoverableConfigFileDiagnostic: (diagnostic: Diagnostic) => {
          throw new Error(ts.formatDiagnostics([diagnostic], formatHost));
        },
      });
      if (config === undefined) throw new Error(`no tsconfig.json in ${dir}`);
      const program = ts.createProgram(config.fileNames, config.options);
      // Checking every library in full (valibot, kysely, @types/node...) takes ten seconds and says
      // nothing about these packages: only the consumer's files and the packages' own are.
      const checked = program
        .getSourceFiles()
        .filter(
          ({ fileName }) =>
            !fileName.includes('/node_modules/') ||
            strictPackages.some((name) => fileName.includes(`/node_modules/${name}/`)),
        );
      const diagnostics = [
        ...config.errors,
        ...program.getOptionsDiagnostics(),
        ...program.getGlobalDiagnostics(),
        ...checked.flatMap((file) => [
          ...program.getSyntacticDiagnostics(file),
          ...program.getSemanticDiagnostics(file),
        ]),
      ];
      // File by file: emitting the whole program would first check every library in full.
      const sources = program.getSourceFiles().filter(({ fileName }) => !fileName.includes('/node_modules/'));
      const emitted = sources.map((file) => program.emit(file));
      diagnostics.push(...emitted.flatMap((result) => result.diagnostics));
      const errors = diagnostics.length === 0 ? '' : ts.formatDiagnostics(diagnostics, formatHost);
      return emitted.some((result) => result.emitSkipped) ? `${errors}TypeScript emitted nothing\n` : errors;
    },
    importsOf(text) {
      const { importedFiles, typeReferenceDirectives } = ts.preProcessFile(text, true, true);
      return {
        modules: importedFiles.map(({ fileName }) => fileName),
        typeReferences: typeReferenceDirectives.map(({ fileName }) => fileName),
      };
    },
  };
}
