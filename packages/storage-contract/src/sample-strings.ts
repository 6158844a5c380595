/** Every int64 edge that a float, a 32-bit or a sign mistake would break. */
export const BOUNDARY_IDS: readonly bigint[] = [
  -(2n ** 63n),
  -(2n ** 63n) + 1n,
  -(2n ** 53n) - 1n,
  -1n,
  0n,
  1n,
  2n ** 53n,
  2n ** 53n + 1n,
  2n ** 63n - 2n,
  2n ** 63n - 1n,
];

// Cut by code points, not UTF-16 units, so no surrogate pair is split into a lone surrogate.
const sixtyKib = Array.from('Monstera deliciosa 🌿 çà \\ \' " '.repeat(2048))
  .slice(0, 60 * 1024)
  .join('');

/**
 * Strings a store must keep exactly: no trimming, no normalisation, no escaping accidents.
 * NUL and lone surrogates are absent on purpose: the domain refuses them before any store.
 */
export const SAMPLE_STRINGS: readonly (readonly [label: string, value: string])[] = [
  ['an empty string', ''],
  ['plain ASCII', 'Monstera'],
  ['emoji outside the BMP', '🌵🪴 cactus 𝔉𝔢𝔯𝔫 👩‍🌾'],
  ['a precomposed accent (NFC)', 'Caf\u00e9'],
  ['a combining accent (NFD)', 'Cafe\u0301'],
  ['right-to-left text with marks', '\u200fنبات \u05e6\u05de\u05d7 \u202eabc\u202c'],
  ['whitespace only', ' \t\n\r\u00a0\u2003'],
  ['leading and trailing spaces', '  Fern  '],
  ['quotes, backslashes and SQL', `'); drop table plants; -- \\ \\\\ " \` $1 %s \\x00 E'\\n'`],
  ['JSON-looking text', '{"id": 1, "name": null}'],
  ['control characters', '\u0001\u0007\u001b[31m\u007f'],
  ['a leading U+FEFF (a byte order mark to a careless decoder)', '\ufeffMonstera'],
  ['U+FEFF alone', '\ufeff'],
  ['two leading U+FEFF', '\ufeff\ufeffMonstera'],
  ['a 60 KiB string', sixtyKib],
];
