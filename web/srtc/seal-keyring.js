// SRTC web SDK: the seal keys this page was given, by app and uid (docs/sealed-strings.md,
// "Delivery to the SDK"). The server hands a client its own uid's key as `seal_key` in the answer
// to a channel `join` (docs/protocol.md) and to an IM `login` (docs/im.md); `SRTCEngine.decrypt`
// opens the strings sealed for it. One keyring per page, as the Swift SDK's is per process; kept
// until the page goes (a key opens only that user's strings, and the app may decrypt after leaving).

import { decodeBase64URL, unverifiedTokenClaims } from './base64url.js';

const SEAL_KEY_BYTES = 32;
/** `app_id` NUL `uid` → the key's 32 bytes. NUL is in neither (docs/sealed-strings.md). */
const keys = new Map();

const owner = (appId, uid) => `${appId}\u0000${uid}`;

/**
 * Keeps `encodedKey` (base64url of 32 bytes) for `uid` of the app that issued `token`. Nothing is
 * kept when the server sent no key, or the key or the token is malformed.
 */
export function rememberSealKey(encodedKey, uid, token) {
  const key = typeof encodedKey === 'string' ? decodeBase64URL(encodedKey) : null;
  const appId = unverifiedTokenClaims(token)?.iss;
  if (!key || key.length !== SEAL_KEY_BYTES || typeof appId !== 'string' || !appId || typeof uid !== 'string') return;
  keys.set(owner(appId, uid), key);
}

/** The key of `uid` of `appId`, if this page was given it. */
export function sealKeyFor(appId, uid) {
  return keys.get(owner(appId, uid)) ?? null;
}
