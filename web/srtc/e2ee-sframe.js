// SFrame (RFC 9605) for the web SDK's end-to-end encryption, with WebCrypto: the same frame
// format and key derivation as the Swift SDK (RTCMedia's E2EEFrame, SRTC's E2EEKeyProvider), so
// both read each other's frames byte for byte (docs/e2ee.md). No DOM: runs in a worker too.

const encoder = new TextEncoder();
/** The cipher suite: AES_128_GCM_SHA256_128 (RFC 9605 §4.5). */
const SUITE = 0x0004;
export const PASSPHRASE_ITERATIONS = 100000;
const PASSPHRASE_SALT = encoder.encode('SRTC E2EE shared key v1');
const SENDER_LABEL = 'SRTC E2EE sender ';
/** Key ids remembered per remote participant (the Swift SDK keeps as many). */
const KEY_IDS_PER_PARTICIPANT = 4;

/** The bytes of `parts` one after the other. */
export function concat(...parts) {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let offset = 0;
  for (const p of parts) { out.set(p, offset); offset += p.length; }
  return out;
}

/** A value's shortest big-endian bytes (values up to 2^53, which JavaScript numbers hold exactly). */
function shortestBytes(value) {
  const out = [];
  for (let v = value; v > 0; v = Math.floor(v / 256)) out.unshift(v % 256);
  return out;
}

/** The SFrame header (RFC 9605 §4.3): |X|K|Y|C| then the key id, then the counter. */
export function encodeHeader(keyId, counter) {
  const k = keyId < 8 ? [] : shortestBytes(keyId);
  const c = counter < 8 ? [] : shortestBytes(counter);
  const high = k.length ? 0x08 | (k.length - 1) : keyId;
  const low = c.length ? 0x08 | (c.length - 1) : counter;
  return Uint8Array.from([(high << 4) | low, ...k, ...c]);
}

/** `{keyId, counter, length}` of the header at the start of `bytes`, or null (truncated, not shortest, or past 2^53). */
export function parseHeader(bytes) {
  if (bytes.length < 1) return null;
  const config = bytes[0];
  let offset = 1;
  const read = (extended, field) => {
    if (!extended) return field;
    const length = field + 1;
    if (length > 6 || bytes.length < offset + length) return null;
    let value = 0;
    for (let i = 0; i < length; i++) value = value * 256 + bytes[offset + i];
    if (value < 8 || shortestBytes(value).length !== length) return null;
    offset += length;
    return value;
  };
  const keyId = read((config & 0x80) !== 0, (config >> 4) & 0x07);
  if (keyId === null) return null;
  const counter = read((config & 0x08) !== 0, config & 0x07);
  if (counter === null) return null;
  return { keyId, counter, length: offset };
}

/** Leading bytes left in the clear: VP8 10 on a key frame (P bit clear) else 3, Opus 1, VP9 0; -1 if too short. H.264: see `h264Clear`. */
export function clearLength(codec, bytes) {
  if (bytes.length === 0) return -1;
  const n = codec === 'vp8' ? ((bytes[0] & 0x01) === 0 ? 10 : 3) : codec === 'vp9' ? 0 : 1;
  return bytes.length >= n ? n : -1;
}

// H.264 (docs/e2ee.md, "Frame format"; the Swift SDK's E2EEFrame+H264.swift): the NAL units before
// the first slice and that slice's NAL header and slice header up to pic_parameter_set_id stay
// clear, written with 4-byte start codes; the SFrame bytes follow inside the slice's NAL unit with
// emulation prevention (H.264 §7.4.1), so they hold no start code.
const START_CODE = [0, 0, 0, 1];

/** Index of the next 00 00 01 at or after `from`, or -1. */
function nextStartCode(bytes, from) {
  for (let i = from; i + 2 < bytes.length;) {
    if (bytes[i + 2] > 1) i += 3;
    else if (bytes[i] === 0 && bytes[i + 1] === 0 && bytes[i + 2] === 1) return i;
    else i += 1;
  }
  return -1;
}

/** Bytes (emulation prevention included) of first_mb_in_slice, slice_type and pic_parameter_set_id from `from`, or -1. */
function sliceHeaderLength(bytes, from, end) {
  let position = from, current = 0, bitsLeft = 0, zeros = 0;
  const bit = () => {
    if (bitsLeft === 0) {
      if (position >= end) return -1;
      let byte = bytes[position];
      if (zeros >= 2 && byte === 3) {
        position += 1; zeros = 0;
        if (position >= end) return -1;
        byte = bytes[position];
      }
      zeros = byte === 0 ? zeros + 1 : 0;
      current = byte; position += 1; bitsLeft = 8;
    }
    bitsLeft -= 1;
    return (current >> bitsLeft) & 1;
  };
  for (let n = 0; n < 3; n++) {
    let leading = 0, b;
    while ((b = bit()) === 0) if (++leading >= 32) return -1;
    if (b < 0) return -1;
    for (let i = 0; i < leading; i++) if (bit() < 0) return -1;
  }
  return position - from;
}

/** `{clear, rest, zeros}` of an H.264 access unit (the clear part rewritten, the index where the rest starts, the 00 bytes ending the clear slice bytes), or null. */
export function h264Clear(bytes) {
  let code = nextStartCode(bytes, 0);
  if (code < 0) return null;
  const parts = [];
  for (;;) {
    const start = code + 3;
    const next = nextStartCode(bytes, start);
    let end = next < 0 ? bytes.length : next;
    if (next >= 0 && end > start && bytes[end - 1] === 0) end -= 1;
    if (end > start) {
      const type = bytes[start] & 0x1f;
      if (type >= 1 && type <= 5) {
        const length = sliceHeaderLength(bytes, start + 1, end);
        if (length < 0) return null;
        const rest = start + 1 + length;
        parts.push(Uint8Array.from(START_CODE), bytes.subarray(start, rest));
        let zeros = 0;
        for (let i = rest - 1; zeros < 2 && i > start && bytes[i] === 0; i--) zeros += 1;
        return { clear: concat(...parts), rest, zeros };
      }
      parts.push(Uint8Array.from(START_CODE), bytes.subarray(start, end));
    }
    if (next < 0) return null;
    code = next;
  }
}

/** `bytes` with 03 after every 00 00 that a byte ≤ 03 follows, and after a final 00 00 (`zeros`: 00 bytes just before). */
export function escapeH264(bytes, zeros = 0) {
  const out = [];
  let run = Math.min(zeros, 2);
  for (const byte of bytes) {
    if (run >= 2 && byte <= 3) { out.push(3); run = 0; }
    out.push(byte);
    run = byte === 0 ? run + 1 : 0;
  }
  if (run >= 2) out.push(3);
  return Uint8Array.from(out);
}

/** `bytes` without their emulation prevention bytes (every 03 after 00 00). */
export function unescapeH264(bytes, zeros = 0) {
  const out = [];
  let run = Math.min(zeros, 2);
  for (const byte of bytes) {
    if (run >= 2 && byte === 3) { run = 0; continue; }
    out.push(byte);
    run = byte === 0 ? run + 1 : 0;
  }
  return Uint8Array.from(out);
}

// AV1 (docs/e2ee.md, "Frame format"; the Swift SDK's E2EEFrame+AV1.swift): every OBU keeps its
// header and a size in the clear, so a packetizer still parses the temporal unit; the OBU payloads
// are the plaintext, the SFrame header rides at the start of the first OBU's payload and the tag at
// the end of the last's. The metadata authenticates each OBU's header (S cleared) and plaintext
// size. Temporal delimiter, tile list and padding OBUs are left out, as packetizers drop them.
const AV1_UNSENT = new Set([2, 8, 15]);

/** `{headers, payloads}` of the OBUs of a temporal unit a packetizer sends, or null (an OBU without obu_size, or past the end). */
export function av1Obus(bytes) {
  const headers = [], payloads = [];
  let offset = 0;
  while (offset < bytes.length) {
    const first = bytes[offset];
    const headerLength = first & 0x04 ? 2 : 1;
    if (first & 0x80 || !(first & 0x02) || offset + headerLength > bytes.length) return null;
    const header = bytes.subarray(offset, offset + headerLength);
    offset += headerLength;
    let size = 0, i = 0;
    for (;; i++) {
      if (i === 8 || offset >= bytes.length) return null;
      const byte = bytes[offset++];
      size += (byte & 0x7f) * 2 ** (7 * i);
      if (!(byte & 0x80)) break;
    }
    if (size > bytes.length - offset) return null;
    if (!AV1_UNSENT.has((first >> 3) & 0x0f)) { headers.push(header); payloads.push(bytes.subarray(offset, offset + size)); }
    offset += size;
  }
  return headers.length ? { headers, payloads } : null;
}

function leb128(value) {
  const out = [];
  let rest = value;
  do { const byte = rest & 0x7f; rest = Math.floor(rest / 128); out.push(rest > 0 ? byte | 0x80 : byte); } while (rest > 0);
  return out;
}

/** The AV1 metadata: each OBU's header with S cleared, its extension byte, and leb128 of its plaintext size. */
export function av1Metadata(headers, sizes) {
  return Uint8Array.from(headers.flatMap((header, i) => [header[0] & ~0x02, ...header.subarray(1), ...leb128(sizes[i])]));
}

/** OBUs with `headers` (S set) whose payloads are `body` cut into `sizes`. */
export function av1Frame(headers, sizes, body) {
  const parts = [];
  let offset = 0;
  headers.forEach((header, i) => {
    parts.push(Uint8Array.from([header[0] | 0x02, ...header.subarray(1), ...leb128(sizes[i])]), body.subarray(offset, offset + sizes[i]));
    offset += sizes[i];
  });
  return concat(...parts);
}

/** `length` bytes of HKDF-SHA256 (RFC 5869) of `ikm` with an empty salt and `info`. */
export async function hkdf(ikm, info, length) {
  const key = await crypto.subtle.importKey('raw', ikm, 'HKDF', false, ['deriveBits']);
  return new Uint8Array(await crypto.subtle.deriveBits({ name: 'HKDF', hash: 'SHA-256', salt: new Uint8Array(0), info }, key, length * 8));
}

/** The channel secret of a shared passphrase: PBKDF2-HMAC-SHA256, 100000 iterations, 32 bytes. */
export async function sharedSecret(passphrase) {
  const key = await crypto.subtle.importKey('raw', encoder.encode(passphrase), 'PBKDF2', false, ['deriveBits']);
  return new Uint8Array(await crypto.subtle.deriveBits(
    { name: 'PBKDF2', hash: 'SHA-256', salt: PASSPHRASE_SALT, iterations: PASSPHRASE_ITERATIONS }, key, 256));
}

/** The base key sender `uid` encrypts under. */
export function senderBaseKey(secret, uid) {
  return hkdf(secret, encoder.encode(SENDER_LABEL + uid), 16);
}

/** RFC 9605 §4.4.2: the AES-GCM key and the salt for `keyId` (labels end with KID as 8 bytes and the suite as 2). */
export async function frameKey(baseKey, keyId) {
  const tail = new Uint8Array(10);
  let v = keyId;
  for (let i = 7; i >= 0; i--) { tail[i] = v % 256; v = Math.floor(v / 256); }
  tail[8] = SUITE >> 8; tail[9] = SUITE & 0xff;
  const keyBytes = await hkdf(baseKey, concat(encoder.encode('SFrame 1.0 Secret key '), tail), 16);
  const salt = await hkdf(baseKey, concat(encoder.encode('SFrame 1.0 Secret salt '), tail), 12);
  return { key: await crypto.subtle.importKey('raw', keyBytes, 'AES-GCM', false, ['encrypt', 'decrypt']), salt };
}

/** The salt XOR the counter as a 12-byte big-endian integer (RFC 9605 §4.4.3). */
function nonce(salt, counter) {
  const out = Uint8Array.from(salt);
  let v = counter;
  for (let i = 11; i >= 0 && v > 0; i--) { out[i] ^= v % 256; v = Math.floor(v / 256); }
  return out;
}

/**
 * `prefix ‖ header ‖ AES-GCM(body)` with `aad = header ‖ metadata` (RFC 9605 §4.4.3; a frame's
 * metadata is its clear bytes, the prefix), under `frame` (`frameKey`'s result) and the given key
 * id and counter.
 */
export async function seal(frame, keyId, counter, prefix, body, metadata = prefix) {
  const header = encodeHeader(keyId, counter);
  const sealed = await crypto.subtle.encrypt({ name: 'AES-GCM', iv: nonce(frame.salt, counter), additionalData: concat(header, metadata), tagLength: 128 },
    frame.key, body);
  return concat(prefix, header, new Uint8Array(sealed));
}

/**
 * Encrypted data messages (docs/e2ee.md, "Data messages"): `marker ‖ header ‖ AES-GCM(payload)`
 * with `aad = header ‖ marker ‖ topic length ‖ topic`. 0xFF never begins UTF-8 text.
 */
export const DATA_MARKER = Uint8Array.from([0xff, 0x53, 0x46, 0x01]);

/** Whether a data payload begins with the encrypted marker. */
export function isEncryptedData(bytes) {
  return bytes.length >= DATA_MARKER.length && DATA_MARKER.every((b, i) => bytes[i] === b);
}

/** The metadata a data message authenticates: the marker, the topic's length and the topic (UTF-8 bytes). */
function dataMetadata(topicBytes) {
  return concat(DATA_MARKER, Uint8Array.of(topicBytes.length), topicBytes);
}

/** Key ids carry the key index above 40 random bits per sending session (docs/e2ee.md, "Keys"). */
const SESSION_SPAN = 2 ** 40;
export const keyIndexOf = (keyId) => Math.floor(keyId / SESSION_SPAN);

/** One sender's encryption under key number `index`: a new key id per session, a counter per frame across all its tracks. */
export class SFrameSender {
  constructor(baseKey, index) {
    this.keyId = index * SESSION_SPAN + Math.floor(Math.random() * SESSION_SPAN);
    this.counter = 0;
    this.key = Promise.resolve(baseKey).then((base) => frameKey(base, this.keyId));
  }

  /** `clear ‖ header ‖ AES-GCM(rest)` of the frame `bytes`, or null for a frame its codec does not make. */
  async encrypt(bytes, codec) {
    if (codec === 'h264') {
      const layout = h264Clear(bytes);
      if (!layout) return null;
      const counter = this.counter++;
      const sealed = await seal(await this.key, this.keyId, counter, new Uint8Array(0), bytes.subarray(layout.rest), layout.clear);
      return concat(layout.clear, escapeH264(sealed, layout.zeros));
    }
    if (codec === 'av1') {
      const obus = av1Obus(bytes);
      if (!obus) return null;
      const sizes = obus.payloads.map((p) => p.length);
      const counter = this.counter++;
      const sealed = await seal(await this.key, this.keyId, counter, new Uint8Array(0), concat(...obus.payloads), av1Metadata(obus.headers, sizes));
      const last = sizes.length - 1;
      sizes[0] += sealed.length - 16 - sizes.reduce((n, size) => n + size, 0);
      sizes[last] += 16;
      return av1Frame(obus.headers, sizes, sealed);
    }
    const clear = clearLength(codec, bytes);
    if (clear < 0) return null;
    const counter = this.counter++;
    return seal(await this.key, this.keyId, counter, bytes.subarray(0, clear), bytes.subarray(clear));
  }

  /** The encrypted payload of a data message with `topicBytes` (UTF-8, at most 255 bytes). */
  async encryptData(payload, topicBytes) {
    const counter = this.counter++;
    return seal(await this.key, this.keyId, counter, DATA_MARKER, payload, dataMetadata(topicBytes));
  }
}

/** Counters below the newest accepted one that a replay window still tells apart (the Swift SDK's SFrameReplayWindow.size). */
export const REPLAY_WINDOW = 1024;

/**
 * The counters of one key id's data messages accepted so far (docs/e2ee.md, "Data messages"): the
 * newest and a slot per counter of the `REPLAY_WINDOW` up to it, as SRTP's replay list (RFC 3711
 * §3.3.2). Record a counter only once its message authenticated.
 */
export class ReplayWindow {
  constructor() {
    this.newest = null;
    this.seen = new Uint8Array(REPLAY_WINDOW);
  }

  /** 'fresh' (recorded), 'replayed' (accepted before) or 'tooOld' (REPLAY_WINDOW or more below the newest). */
  accept(counter) {
    const slot = (c) => c % REPLAY_WINDOW;
    if (this.newest === null || counter > this.newest) {
      if (this.newest === null || counter - this.newest >= REPLAY_WINDOW) this.seen.fill(0);
      else for (let c = this.newest + 1; c < counter; c++) this.seen[slot(c)] = 0;
      this.seen[slot(counter)] = 1;
      this.newest = counter;
      return 'fresh';
    }
    if (this.newest - counter >= REPLAY_WINDOW) return 'tooOld';
    if (this.seen[slot(counter)]) return 'replayed';
    this.seen[slot(counter)] = 1;
    return 'fresh';
  }
}

/** One remote participant's decryption, deriving each key id it names from `baseKeyFor(index)` (a promise of bytes or null). */
export class SFrameReceiver {
  constructor(baseKeyFor) {
    this.baseKeyFor = baseKeyFor;
    this.keys = new Map();
  }

  /** `{frame, index}` (the original bytes, the key index) or `{error}` (`decryptionFailed`, `missingKey`). */
  decrypt(bytes, codec) {
    if (codec === 'h264') {
      const layout = h264Clear(bytes);
      if (!layout) return Promise.resolve({ error: 'decryptionFailed' });
      const framed = concat(layout.clear, unescapeH264(bytes.subarray(layout.rest), layout.zeros));
      return this.#open(framed, layout.clear.length, layout.clear, true);
    }
    if (codec === 'av1') return this.#openAV1(bytes);
    const clear = clearLength(codec, bytes);
    return this.#open(bytes, clear, clear < 0 ? null : bytes.subarray(0, clear), true);
  }

  async #openAV1(bytes) {
    const obus = av1Obus(bytes);
    const header = obus && parseHeader(obus.payloads[0]);
    if (!header) return { error: 'decryptionFailed' };
    const last = obus.payloads.length - 1;
    const sizes = obus.payloads.map((p, i) => p.length - (i === 0 ? header.length : 0) - (i === last ? 16 : 0));
    if (sizes.some((size) => size < 0)) return { error: 'decryptionFailed' };
    const result = await this.#open(concat(...obus.payloads), 0, av1Metadata(obus.headers, sizes), false);
    if (result.frame) result.frame = av1Frame(obus.headers, sizes, result.frame);
    return result;
  }

  /** `{frame, index, keyId, counter}` (the data message's payload) or `{error}`, for an encrypted payload with `topicBytes`. */
  decryptData(bytes, topicBytes) {
    if (!isEncryptedData(bytes)) return Promise.resolve({ error: 'decryptionFailed' });
    return this.#open(bytes, DATA_MARKER.length, dataMetadata(topicBytes), false);
  }

  /** Opens `bytes` whose SFrame header starts at `clear`; keeps the first `clear` bytes in front when `keepPrefix`. */
  async #open(bytes, clear, metadata, keepPrefix) {
    const header = clear < 0 ? null : parseHeader(bytes.subarray(clear));
    if (!header || bytes.length < clear + header.length + 16) return { error: 'decryptionFailed' };
    const index = keyIndexOf(header.keyId);
    if (!this.keys.has(header.keyId)) {
      this.keys.set(header.keyId, Promise.resolve(this.baseKeyFor(index)).then((base) => (base ? frameKey(base, header.keyId) : null)));
      if (this.keys.size > KEY_IDS_PER_PARTICIPANT) this.keys.delete(this.keys.keys().next().value);
    }
    const derived = await this.keys.get(header.keyId);
    if (!derived) { this.keys.delete(header.keyId); return { error: 'missingKey' }; }
    const { key, salt } = derived;
    const sframeHeader = bytes.subarray(clear, clear + header.length);
    try {
      const plain = await crypto.subtle.decrypt({ name: 'AES-GCM', iv: nonce(salt, header.counter), additionalData: concat(sframeHeader, metadata), tagLength: 128 },
        key, bytes.subarray(clear + header.length));
      return { frame: keepPrefix ? concat(bytes.subarray(0, clear), new Uint8Array(plain)) : new Uint8Array(plain), index,
        keyId: header.keyId, counter: header.counter };
    } catch {
      return { error: 'decryptionFailed' };
    }
  }
}
