import type { Logger } from 'pino';
import type { Config } from '../config.ts';
import { type CredentialChecker, createCredentialChecker } from './credentials.ts';
import { createKeyStore, type KeyStore } from './jwks-keys.ts';
import { createJwtVerifier } from './jwt-verifier.ts';
import { fixedTokenSet, reloadingTokenSet } from './token-set.ts';

export interface ConfiguredCredentials {
  readonly credentials: CredentialChecker;
  /** The provider's keys when JWT_ISSUER is set: loading in the background, to stop with the service. */
  readonly jwtKeys: KeyStore | undefined;
}

/**
 * The credentials the configuration names: the static tokens (API_TOKENS, and API_TOKENS_FILE
 * reloaded as it changes) and, with JWT_ISSUER, the provider's access tokens, whose keys start
 * loading now.
 */
export function configuredCredentials(config: Config, logger: Logger): ConfiguredCredentials {
  const jwtKeys =
    config.jwtIssuer === undefined
      ? undefined
      : createKeyStore({ issuer: config.jwtIssuer, jwksUrl: config.jwtJwksUrl, logger });
  const credentials = createCredentialChecker({
    staticTokens:
      config.tokensFile === undefined
        ? fixedTokenSet(config.tokens)
        : reloadingTokenSet({ tokens: config.tokens, file: config.tokensFile, logger }),
    hasStaticTokens: config.tokens.length > 0 || config.tokensFile !== undefined,
    scopes: { read: config.jwtScopeRead, write: config.jwtScopeWrite },
    ...(jwtKeys === undefined || config.jwtIssuer === undefined || config.jwtAudience === undefined
      ? {}
      : {
          jwt: {
            verifier: createJwtVerifier({
              keys: jwtKeys,
              issuer: config.jwtIssuer,
              audience: config.jwtAudience,
              algorithms: config.jwtAlgorithms,
              clockToleranceSeconds: config.jwtClockToleranceS,
              strictProfile: config.jwtStrictProfile,
            }),
            ready: () => jwtKeys.ready(),
          },
        }),
  });
  if (!credentials.configured)
    logger.warn('no API token is configured: every request that needs one answers 401');
  // Not awaited: the service starts while the provider is down, and /readyz says 503 until the keys come.
  void jwtKeys?.start();
  return { credentials, jwtKeys };
}
