// End-to-end encrypted meetings in the web SMeeting SDK (docs/e2ee.md, "E2EE meetings"): the same
// key exchange, byte for byte, as the Swift SDK's (SMeeting's MeetingE2EE and MeetingKeySeal,
// SMeetingProtocol's MeetingKeyMessage), with WebCrypto's X25519, HKDF and AES-GCM.
import { E2EEKeyProvider } from '../srtc/e2ee.js';
import { concat, hkdf } from '../srtc/e2ee-sframe.js';

/** The data-message topic the key exchange travels under. */
export const KEY_TOPIC = 'smeeting.e2ee';
const VERSION = 1;
const KEY_LENGTH = 32;
const NONCE_LENGTH = 12;
const TAG_LENGTH = 16;
const encoder = new TextEncoder();
const SEAL_LABEL = encoder.encode('SMeeting E2EE seal v1');
const SENDER_LABEL = 'SMeeting E2EE sender ';
const CODE_LABEL = encoder.encode('SMeeting E2EE verification v1');

/** Why a key-exchange message was refused (the names of docs/e2ee.md). */
export class MeetingKeyError extends Error {
  constructor(reason) { super(reason); this.reason = reason; }
}

const equalBytes = (a, b) => a.length === b.length && a.every((x, i) => x === b[i]);

/** Bytewise order of two UTF-8 strings, as the Swift SDK sorts the roster. */
function compareUids(a, b) {
  const x = encoder.encode(a), y = encoder.encode(b);
  for (let i = 0; i < Math.min(x.length, y.length); i++) if (x[i] !== y[i]) return x[i] - y[i];
  return x.length - y.length;
}

/** `{type: 'announce', publicKey}` or `{type: 'sealed', epoch, senderPublicKey, nonce, ciphertext, header}`; throws MeetingKeyError. */
export function parseKeyMessage(bytes) {
  if (bytes.length < 2) throw new MeetingKeyError('truncated');
  if (bytes[0] !== VERSION) throw new MeetingKeyError(`unsupportedVersion(${bytes[0]})`);
  if (bytes[1] === 1) {
    if (bytes.length < 2 + KEY_LENGTH) throw new MeetingKeyError('truncated');
    if (bytes.length > 2 + KEY_LENGTH) throw new MeetingKeyError('trailingBytes');
    return { type: 'announce', publicKey: bytes.slice(2) };
  }
  if (bytes[1] === 2) {
    const fixed = 3 + KEY_LENGTH + NONCE_LENGTH;
    if (bytes.length < fixed + TAG_LENGTH) throw new MeetingKeyError('truncated');
    return { type: 'sealed', epoch: bytes[2], senderPublicKey: bytes.slice(3, 3 + KEY_LENGTH), nonce: bytes.slice(3 + KEY_LENGTH, fixed),
             ciphertext: bytes.slice(fixed), header: bytes.slice(0, fixed) };
  }
  throw new MeetingKeyError(`unknownType(${bytes[1]})`);
}

/** The roster as it travels: count (2 bytes) and entries (uid length, uid, public key). */
function rosterBytes(roster) {
  const parts = [Uint8Array.of(roster.length >> 8, roster.length & 0xff)];
  for (const { uid, publicKey } of roster) {
    const u = encoder.encode(uid);
    parts.push(Uint8Array.of(u.length), u, publicKey);
  }
  return concat(...parts);
}

/** `{meetingKey, roster}` of a grant's plaintext; throws MeetingKeyError. */
export function parseGrant(bytes) {
  if (bytes.length < KEY_LENGTH + 2) throw new MeetingKeyError('truncated');
  const decoder = new TextDecoder('utf-8', { fatal: true });
  const count = (bytes[KEY_LENGTH] << 8) | bytes[KEY_LENGTH + 1];
  let at = KEY_LENGTH + 2;
  const roster = [];
  for (let i = 0; i < count; i++) {
    if (at >= bytes.length) throw new MeetingKeyError('truncated');
    const length = bytes[at];
    if (length === 0) throw new MeetingKeyError('emptyUid');
    const end = at + 1 + length + KEY_LENGTH;
    if (end > bytes.length) throw new MeetingKeyError('truncated');
    let uid;
    try { uid = decoder.decode(bytes.subarray(at + 1, at + 1 + length)); } catch { throw new MeetingKeyError('invalidUid'); }
    if (roster.length && compareUids(roster[roster.length - 1].uid, uid) >= 0) throw new MeetingKeyError('rosterNotSorted');
    roster.push({ uid, publicKey: bytes.slice(at + 1 + length, end) });
    at = end;
  }
  if (at !== bytes.length) throw new MeetingKeyError('trailingBytes');
  return { meetingKey: bytes.slice(0, KEY_LENGTH), roster };
}

/** The base key sender `uid` encrypts under with `meetingKey` (16 bytes). */
export const senderKey = (meetingKey, uid) => hkdf(meetingKey, encoder.encode(SENDER_LABEL + uid), 16);

/** Three groups of four digits from the meeting key, the epoch and the roster. */
export async function verificationCode(meetingKey, roster, epoch) {
  const bytes = await hkdf(meetingKey, concat(CODE_LABEL, Uint8Array.of(epoch), rosterBytes(roster)), 6);
  return [0, 1, 2].map((g) => String(((bytes[2 * g] << 8) | bytes[2 * g + 1]) % 10000).padStart(4, '0')).join(' ');
}

const uidField = (uid) => { const u = encoder.encode(uid).subarray(0, 255); return concat(Uint8Array.of(u.length), u); };

/**
 * One page's side of an E2EE meeting: its X25519 key pair, announced public keys, the meeting key
 * in use, and the per-participant key provider the channel encrypts with (key index = epoch).
 */
export class MeetingE2EE {
  static async create() {
    const pair = await crypto.subtle.generateKey({ name: 'X25519' }, false, ['deriveBits']);
    const publicKey = new Uint8Array(await crypto.subtle.exportKey('raw', pair.publicKey));
    return new MeetingE2EE(pair.privateKey, publicKey);
  }

  constructor(privateKey, publicKey) {
    this.privateKey = privateKey;
    this.publicKey = publicKey;
    this.provider = E2EEKeyProvider.perParticipant();
    this.publicKeys = new Map();
    this.epoch = null;
    this.grant = null;
    this.status = null;
  }

  /** My announcement: version 1, type 1, my public key. */
  get announcement() { return concat(Uint8Array.of(VERSION, 1), this.publicKey); }

  knowsKey(uid) { return this.publicKeys.has(uid); }
  forget(uid) { this.publicKeys.delete(uid); }

  async #wrapKey(peerPublic, senderPublic, recipientPublic) {
    let shared;
    try {
      const peer = await crypto.subtle.importKey('raw', peerPublic, { name: 'X25519' }, true, []);
      shared = new Uint8Array(await crypto.subtle.deriveBits({ name: 'X25519', public: peer }, this.privateKey, 256));
    } catch {
      throw new MeetingKeyError('badPublicKey');
    }
    const bits = await hkdf(shared, concat(SEAL_LABEL, senderPublic, recipientPublic), 32);
    return crypto.subtle.importKey('raw', bits, 'AES-GCM', false, ['encrypt', 'decrypt']);
  }

  /**
   * Whether a rotation for `members` would seal to another roster than the key in use (a member
   * gone, or a public key new or changed); true before the first key.
   */
  rotationChangesRoster(myUid, members) {
    if (this.epoch === null || !this.grant) return true;
    const entry = (uid, key) => `${uid}:${[...key].join(',')}`;
    const next = new Set([entry(myUid, this.publicKey)]);
    for (const uid of new Set(members)) if (uid !== myUid && this.publicKeys.has(uid)) next.add(entry(uid, this.publicKeys.get(uid)));
    const now = new Set(this.grant.roster.map((m) => entry(m.uid, m.publicKey)));
    return next.size !== now.size || [...next].some((e) => !now.has(e));
  }

  /** Host: a new meeting key for me and `members` with known keys; `{messages: [{uid, bytes}], status}`, or null when the epochs ran out. */
  async rotate(myUid, members) {
    if (this.epoch === 255) return null;
    const epoch = this.epoch === null ? 0 : this.epoch + 1;
    this.epoch = epoch;  // reserved before the awaits: a concurrent rotation takes the next one
    const roster = [{ uid: myUid, publicKey: this.publicKey }];
    for (const uid of new Set(members)) if (uid !== myUid && this.publicKeys.has(uid)) roster.push({ uid, publicKey: this.publicKeys.get(uid) });
    roster.sort((a, b) => compareUids(a.uid, b.uid));
    const meetingKey = crypto.getRandomValues(new Uint8Array(KEY_LENGTH));
    const plain = concat(meetingKey, rosterBytes(roster));
    const messages = [];
    for (const member of roster) {
      if (member.uid === myUid) continue;
      try {
        const key = await this.#wrapKey(member.publicKey, this.publicKey, member.publicKey);
        const nonce = crypto.getRandomValues(new Uint8Array(NONCE_LENGTH));
        const header = concat(Uint8Array.of(VERSION, 2, epoch), this.publicKey, nonce);
        const aad = concat(header, uidField(myUid), uidField(member.uid));
        const sealed = new Uint8Array(await crypto.subtle.encrypt({ name: 'AES-GCM', iv: nonce, additionalData: aad, tagLength: 128 }, key, plain));
        messages.push({ uid: member.uid, bytes: concat(header, sealed) });
      } catch { /* an unusable key: that member gets nothing */ }
    }
    const status = await this.#apply({ meetingKey, roster }, epoch);
    return { messages, status };
  }

  /**
   * Handles a key-exchange message from `from`: `{announced: uid, isNew}` (isNew: a key this page
   * did not hold for uid) or `{status}`; throws MeetingKeyError.
   */
  async receive(bytes, from, myUid, hostUid) {
    const message = parseKeyMessage(bytes);
    if (message.type === 'announce') {
      const known = this.publicKeys.get(from);
      this.publicKeys.set(from, message.publicKey);
      return { announced: from, isNew: !known || !equalBytes(known, message.publicKey) };
    }
    if (from !== hostUid) throw new MeetingKeyError(`notFromHost(${from})`);
    const key = await this.#wrapKey(message.senderPublicKey, message.senderPublicKey, this.publicKey);
    let plain;
    try {
      plain = new Uint8Array(await crypto.subtle.decrypt({ name: 'AES-GCM', iv: message.nonce, tagLength: 128,
        additionalData: concat(message.header, uidField(from), uidField(myUid)) }, key, message.ciphertext));
    } catch {
      throw new MeetingKeyError('authenticationFailed');
    }
    const grant = parseGrant(plain);
    const has = (uid, publicKey) => grant.roster.some((m) => m.uid === uid && equalBytes(m.publicKey, publicKey));
    if (!has(myUid, this.publicKey) || !has(from, message.senderPublicKey)) throw new MeetingKeyError('rosterMismatch');
    if (this.epoch !== null && message.epoch <= this.epoch) throw new MeetingKeyError(`staleEpoch(${message.epoch})`);
    this.epoch = message.epoch;
    for (const member of grant.roster) this.publicKeys.set(member.uid, member.publicKey);
    return { status: await this.#apply(grant, message.epoch) };
  }

  /** Gives the channel each roster member's key of `epoch`; members of the previous roster not in this one lose theirs. */
  async #apply(grant, epoch) {
    for (const member of grant.roster) this.provider.setKey(member.uid, await senderKey(grant.meetingKey, member.uid), epoch);
    const kept = new Set(grant.roster.map((m) => m.uid));
    for (const member of this.grant?.roster ?? []) if (!kept.has(member.uid)) this.provider.removeKeys(member.uid);
    this.grant = grant;
    this.status = { epoch, verificationCode: await verificationCode(grant.meetingKey, grant.roster, epoch), members: grant.roster.map((m) => m.uid) };
    return this.status;
  }
}
