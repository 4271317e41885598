// SRTC web SDK: sealed strings (docs/sealed-strings.md), the reading side only: a backend seals
// (`POST /server/v1/seal`), and the SDK opens the strings sealed for its user with the key the
// server gave it (seal-keyring.js). The Swift counterpart is `SealedString` in SRTCProtocol.
//
//   srtc1.<app_id>.<base64url(UTF-8(uid))>.<base64url(nonce ‖ ciphertext ‖ tag)>
//   └────────────── header (additional data) ─────┘
//
// AES-256-GCM (NIST SP 800-38D) with a 12-byte nonce and a 16-byte tag, through WebCrypto.

import { decodeCanonicalBase64URL } from './base64url.js';

const PREFIX = 'srtc1.';
const NONCE_BYTES = 12;
const TAG_BYTES = 16;
/** The largest plaintext, in UTF-8 bytes. */
export const MAX_PLAINTEXT_BYTES = 65536;
const MAX_APP_ID_BYTES = 256;
const MAX_UID_CHARS = 64;
const MIN_BOX_BYTES = NONCE_BYTES + TAG_BYTES;
const MAX_BOX_BYTES = MIN_BOX_BYTES + MAX_PLAINTEXT_BYTES;
const base64Length = (count) => Math.floor((count * 4 + 2) / 3);
/** The longest sealed string in UTF-8 bytes (87,769): longer input is refused before any decoding. */
export const MAX_SEALED_BYTES = PREFIX.length + MAX_APP_ID_BYTES + 1 + base64Length(MAX_UID_CHARS) + 1 + base64Length(MAX_BOX_BYTES);

/** docs/server-api.md, "Naming rules": 1–64 characters of `A–Z a–z 0–9 _ - . @ = +`. */
const UID = /^[A-Za-z0-9_\-.@=+]{1,64}$/;
const CONTROL = /\p{Cc}/u;

const encoder = new TextEncoder();
// `ignoreBOM` keeps a leading U+FEFF: the plaintext is returned exactly as it was sealed.
const strictDecoder = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

function utf8OrNull(bytes) {
  try {
    return strictDecoder.decode(bytes);
  } catch {
    return null;
  }
}

/** The app id rule of sealed strings: 1 to 256 UTF-8 bytes without control characters. */
function isValidAppId(appId) {
  const count = encoder.encode(appId).length;
  return count > 0 && count <= MAX_APP_ID_BYTES && !CONTROL.test(appId);
}

/**
 * Reads the string form: `{appId, uid, header, box}`, or null for anything else (not a string, a
 * wrong prefix, a part missing or empty, a non-canonical base64url, a uid outside the naming
 * rules, a box too short or too long, more than `MAX_SEALED_BYTES`).
 */
export function parseSealedString(text) {
  // UTF-16 units never outnumber UTF-8 bytes, so this bounds the work before encoding.
  if (typeof text !== 'string' || text.length > MAX_SEALED_BYTES || !text.startsWith(PREFIX)) return null;
  if (!text.isWellFormed() || encoder.encode(text).length > MAX_SEALED_BYTES) return null;
  // The app id may contain dots; base64url has none: split at the last two.
  const last = text.lastIndexOf('.');
  if (last < PREFIX.length) return null;
  const middle = text.lastIndexOf('.', last - 1);
  if (middle < PREFIX.length) return null;
  const appId = text.slice(PREFIX.length, middle);
  if (!isValidAppId(appId)) return null;
  const uidBytes = decodeCanonicalBase64URL(text.slice(middle + 1, last));
  const uid = uidBytes && utf8OrNull(uidBytes);
  if (!uid || !UID.test(uid)) return null;
  const box = decodeCanonicalBase64URL(text.slice(last + 1));
  if (!box || box.length < MIN_BOX_BYTES || box.length > MAX_BOX_BYTES) return null;
  // With canonical parts this is exactly `srtc1.<app_id>.<base64url(uid)>`.
  return { appId, uid, header: text.slice(0, last), box };
}

/**
 * The plaintext of a parsed string under `key` (the user's 32 raw key bytes), or null when the
 * key does not authenticate the box (another user's key, a changed byte) or the plaintext is not
 * UTF-8. A failed check yields nothing, never part of a plaintext (SP 800-38D §7.2).
 */
export async function openSealedString(sealed, key) {
  const cryptoKey = await crypto.subtle.importKey('raw', key, 'AES-GCM', false, ['decrypt']);
  let plaintext;
  try {
    plaintext = await crypto.subtle.decrypt(
      { name: 'AES-GCM', iv: sealed.box.subarray(0, NONCE_BYTES), additionalData: encoder.encode(sealed.header), tagLength: TAG_BYTES * 8 },
      cryptoKey, sealed.box.subarray(NONCE_BYTES));
  } catch {
    return null;   // OperationError: authentication failed
  }
  return utf8OrNull(new Uint8Array(plaintext));
}
