import type { Logger } from 'pino';
import type { Config } from '../config.ts';
import { type CredentialChecker, createCredentialChecker } from './credentials.ts';
import { createKeyStore, type KeyStore } from './jwks-keys.ts';
import { createJwtVerifier } from './jwt-verifier.ts';
import { fixedTokenSet, reloadingTokenSet } from './token-set.ts';

/** The settings credentials are made from. */
export type CredentialSettings = Pick<
  Config,
  | 'tokens'
  | 'tokensFile'
  | 'jwtIssuer'
  | 'jwtJwksUrl'
  | 'jwtAudience'
  | 'jwtAlgorithms'
  | 'jwtClockToleranceS'
  | 'jwtStrictProfile'
  | 'jwtScopeRead'
  | 'jwtScopeWrite'
>;

export interface ConfiguredCredentials {
  readonly checker: CredentialChecker;
  /** The identity provider's keys when JWT_ISSUER is set: the server starts and stops them, /metrics shows them. */
  readonly jwtKeys: KeyStore | undefined;
}

/**
 * The credential checker of the settings: API_TOKENS, API_TOKENS_FILE (read again when it changes)
 * and, with JWT_ISSUER, the provider's access tokens, verified against its keys (not yet started).
 */
export function configuredCredentials(settings: CredentialSettings, logger: Logger): ConfiguredCredentials {
  const { jwtIssuer: issuer, jwtAudience: audience } = settings;
  const jwtKeys =
    issuer === undefined ? undefined : createKeyStore({ issuer, jwksUrl: settings.jwtJwksUrl, logger });
  const checker = createCredentialChecker({
    staticTokens:
      settings.tokensFile === undefined
        ? fixedTokenSet(settings.tokens)
        : reloadingTokenSet({ tokens: settings.tokens, file: settings.tokensFile, logger }),
    hasStaticTokens: settings.tokens.length > 0 || settings.tokensFile !== undefined,
    scopes: { read: settings.jwtScopeRead, write: settings.jwtScopeWrite },
    ...(jwtKeys === undefined || issuer === undefined || audience === undefined
      ? {}
      : {
          jwt: {
            verifier: createJwtVerifier({
              keys: jwtKeys,
              issuer,
              audience,
              algorithms: settings.jwtAlgorithms,
              clockToleranceSeconds: settings.jwtClockToleranceS,
              strictProfile: settings.jwtStrictProfile,
            }),
            ready: () => jwtKeys.ready(),
          },
        }),
  });
  return { checker, jwtKeys };
}
