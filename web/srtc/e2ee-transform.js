// The encoded-frame transforms of end-to-end encryption (docs/e2ee.md): used in the E2EE worker
// (RTCRtpScriptTransform) and, where a browser has only `createEncodedStreams`, on the page.
import { ReplayWindow, SFrameReceiver, SFrameSender, senderBaseKey } from './e2ee-sframe.js';

/**
 * What one channel's transforms share: the keys (a shared secret, or per-participant keys by uid
 * and index), the local sender, a receiver per remote uid and each one's state.
 */
export class E2EEContext {
  constructor(report) {
    this.uid = null;
    this.secret = null;
    /** Per-participant keys: uid → Map(index → {bytes, retiredAt}); null with a shared secret. */
    this.keys = null;
    this.ratchetWindowMs = 10000;
    this.sender = null;
    this.senderKey = null;
    this.receivers = new Map();
    this.states = new Map();
    this.newest = new Map();
    /** Replay windows of data messages: uid → Map(keyId → ReplayWindow), the last 8 key ids per uid. */
    this.dataWindows = new Map();
    /** `report(uid, state)` on each change of a participant's state. */
    this.report = report;
  }

  /** `{uid, secret}` (shared passphrase) or `{uid, keys, ratchetWindowMs}` (per participant). */
  configure(settings) {
    this.uid = settings.uid;
    this.secret = settings.secret ?? null;
    this.keys = settings.keys ? new Map(Object.entries(settings.keys).map(([uid, byIndex]) => [uid, new Map(byIndex)])) : null;
    if (settings.ratchetWindowMs != null) this.ratchetWindowMs = settings.ratchetWindowMs;
    this.#keysChanged();
  }

  /** A per-participant key given or replaced (`bytes` null: every key of `uid` removed). */
  setKey(uid, index, bytes) {
    if (!this.keys) return;
    if (bytes === null) { this.keys.delete(uid); this.#keysChanged(); return; }
    const mine = this.keys.get(uid) ?? new Map();
    const newest = Math.max(-1, ...mine.keys());
    const now = Date.now();
    if (index > newest) for (const key of mine.values()) key.retiredAt ??= now;
    mine.set(index, { bytes, retiredAt: index < newest ? now : null });
    this.keys.set(uid, mine);
    this.#keysChanged();
  }

  /** Drops what was kept to decrypt `uid` (it left): a return starts afresh, its state reported again. */
  forget(uid) {
    this.receivers.delete(uid);
    this.states.delete(uid);
    this.newest.delete(uid);
    this.dataWindows.delete(uid);
  }

  #keysChanged() {
    this.receivers.clear();
    const index = this.#currentIndex();
    const bytes = index === null ? null : this.keys ? this.keys.get(this.uid).get(index).bytes : 'shared';
    if (bytes !== this.senderKey) {
      this.senderKey = bytes;
      this.sender = bytes === null ? null : new SFrameSender(this.#baseKey(this.uid, index), index);
    }
  }

  #currentIndex() {
    if (!this.uid) return null;
    if (!this.keys) return this.secret ? 0 : null;
    const mine = this.keys.get(this.uid);
    return mine && mine.size ? Math.max(...mine.keys()) : null;
  }

  /** The base key of `uid`'s key `index` (a promise with a shared secret), or null. */
  #baseKey(uid, index) {
    if (!this.keys) return this.secret && index === 0 ? senderBaseKey(this.secret, uid) : null;
    const key = this.keys.get(uid)?.get(index);
    if (!key || (key.retiredAt !== null && Date.now() - key.retiredAt > this.ratchetWindowMs)) return null;
    return key.bytes;
  }

  #receiver(uid) {
    let receiver = this.receivers.get(uid);
    // Derived keys are checked against the keys again each second: a retired key stops decrypting.
    if (!receiver || Date.now() - receiver.madeAt > 1000) {
      receiver = new SFrameReceiver((index) => this.#baseKey(uid, index));
      receiver.madeAt = Date.now();
      this.receivers.set(uid, receiver);
    }
    return receiver;
  }

  #note(uid, result) {
    let state = result.error ?? 'ok';
    if (result.frame) {
      const newest = this.newest.get(uid);
      if (newest !== undefined && result.index > newest) state = 'keyRatcheted';
      this.newest.set(uid, Math.max(newest ?? result.index, result.index));
    }
    if (this.states.get(uid) === state) return;
    this.states.set(uid, state);
    this.report(uid, state);
  }

  /** The encrypted payload of a data message (docs/e2ee.md, "Data messages"), or null without a key to send under. */
  async encryptData(payload, topicBytes) {
    return this.sender ? this.sender.encryptData(payload, topicBytes) : null;
  }

  /**
   * `{frame}` (the payload) or `{error}` (`missingKey`, `decryptionFailed`, or `replayed`: accepted
   * before, or older than the replay window) for an encrypted data payload from `uid`; media
   * states are left alone.
   */
  async decryptData(uid, bytes, topicBytes) {
    if (!this.secret && !this.keys) return { error: 'missingKey' };
    const result = await this.#receiver(uid).decryptData(bytes, topicBytes);
    if (!result.frame) return result;
    // Only an authenticated counter moves the window.
    const windows = this.dataWindows.get(uid) ?? new Map();
    this.dataWindows.set(uid, windows);
    let window = windows.get(result.keyId);
    if (!window) {
      window = new ReplayWindow();
      windows.set(result.keyId, window);
      if (windows.size > 8) windows.delete(windows.keys().next().value);
    }
    return window.accept(result.counter) === 'fresh' ? result : { error: 'replayed' };
  }

  /**
   * A TransformStream of encoded frames: `encrypt` (a sender's frames) or `decrypt` (frames of the
   * participant `target.uid`, read at each frame: a reused receiver changes participant).
   */
  transform(operation, kind, target) {
    return new TransformStream({
      transform: async (frame, controller) => {
        const mime = kind === 'video' ? (frame.getMetadata?.().mimeType ?? 'video/VP8') : 'audio/opus';
        const codec = { 'video/vp8': 'vp8', 'video/vp9': 'vp9', 'video/h264': 'h264', 'video/av1': 'av1', 'audio/opus': 'opus' }[mime.toLowerCase()] ?? null;
        if (!codec) return; // a codec without an E2EE layout (docs/e2ee.md): not sent, not played
        const bytes = new Uint8Array(frame.data);
        if (operation === 'encrypt') {
          if (!this.sender) return; // no key yet: nothing leaves unencrypted
          const encrypted = await this.sender.encrypt(bytes, codec);
          if (!encrypted) return;
          frame.data = encrypted.buffer;
          controller.enqueue(frame);
          return;
        }
        const uid = target.uid;
        if (!uid || (!this.secret && !this.keys)) return;
        const result = await this.#receiver(uid).decrypt(bytes, codec);
        this.#note(uid, result);
        if (!result.frame) return;
        frame.data = result.frame.buffer;
        controller.enqueue(frame);
      },
    });
  }
}
