// SRTC web SDK: base64url without padding (RFC 4648 §5), as tokens (RFC 7515 §2), seal keys and
// sealed strings (docs/sealed-strings.md) spell bytes; and a token's claims read from it.
// atob/btoa work on the standard alphabet (RFC 4648 §4), so the two characters that differ are
// swapped around them.

const ALPHABET = /^[A-Za-z0-9_-]*$/;

/** base64url of `bytes` (a Uint8Array), without padding. */
export function encodeBase64URL(bytes) {
  let binary = '';
  for (let i = 0; i < bytes.length; i += 0x8000) binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(binary).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

/** The bytes of unpadded base64url `text`, or null for a character outside the alphabet or an impossible length. */
export function decodeBase64URL(text) {
  if (typeof text !== 'string' || !ALPHABET.test(text) || text.length % 4 === 1) return null;
  const binary = atob(text.replace(/-/g, '+').replace(/_/g, '/') + '='.repeat((4 - (text.length % 4)) % 4));
  const out = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i += 1) out[i] = binary.charCodeAt(i);
  return out;
}

/**
 * `decodeBase64URL`, but only for the canonical spelling (non-empty, the unused low bits of the
 * last character zero), so one byte string has one text: sealed strings refuse any other.
 */
export function decodeCanonicalBase64URL(text) {
  const bytes = text ? decodeBase64URL(text) : null;
  return bytes && encodeBase64URL(bytes) === text ? bytes : null;
}

/**
 * The claims of a compact JWT (RFC 7519 §7.2: the middle part, UTF-8 JSON), read without
 * verifying it (the server does), or null when it is not one: to show or to key by, never to trust.
 */
export function unverifiedTokenClaims(token) {
  const parts = typeof token === 'string' ? token.split('.') : [];
  const payload = parts.length === 3 ? decodeBase64URL(parts[1]) : null;
  try {
    const claims = payload && JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(payload));
    return claims && typeof claims === 'object' ? claims : null;
  } catch {
    return null;
  }
}
