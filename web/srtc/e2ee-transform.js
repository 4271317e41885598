// The encoded-frame transforms of end-to-end encryption (docs/e2ee.md): used in the E2EE worker
// (RTCRtpScriptTransform) and, where a browser has only `createEncodedStreams`, on the page.
import { SFrameReceiver, SFrameSender } from './e2ee-sframe.js';

/** What one channel's transforms share: the channel secret, its sender, a receiver per remote uid. */
export class E2EEContext {
  constructor(report) {
    this.secret = null;
    this.sender = null;
    this.receivers = new Map();
    this.states = new Map();
    /** `report(uid, state)` on each change of a participant's state. */
    this.report = report;
  }

  /** The channel secret and the uid this client sends as (at join): a new sender session. */
  configure(secret, uid) {
    this.secret = secret;
    this.sender = new SFrameSender(secret, uid);
    this.receivers.clear();
  }

  #receiver(uid) {
    let receiver = this.receivers.get(uid);
    if (!receiver) { receiver = new SFrameReceiver(this.secret, uid); this.receivers.set(uid, receiver); }
    return receiver;
  }

  #note(uid, state) {
    if (this.states.get(uid) === state) return;
    this.states.set(uid, state);
    this.report(uid, state);
  }

  /**
   * A TransformStream of encoded frames: `encrypt` (a sender's frames) or `decrypt` (frames of the
   * participant `target.uid`, read at each frame: a reused receiver changes participant).
   */
  transform(operation, kind, target) {
    return new TransformStream({
      transform: async (frame, controller) => {
        if (!this.secret) return; // not configured yet: nothing leaves or plays unencrypted
        const mime = kind === 'video' ? (frame.getMetadata?.().mimeType ?? 'video/VP8') : 'audio/opus';
        const codec = mime.toLowerCase() === 'video/vp8' ? 'vp8' : mime.toLowerCase() === 'audio/opus' ? 'opus' : null;
        if (!codec) return; // H.264 is not encrypted (docs/e2ee.md): not sent, not played
        const bytes = new Uint8Array(frame.data);
        if (operation === 'encrypt') {
          const encrypted = await this.sender.encrypt(bytes, codec);
          if (!encrypted) return;
          frame.data = encrypted.buffer;
          controller.enqueue(frame);
          return;
        }
        const uid = target.uid;
        if (!uid) return;
        const result = await this.#receiver(uid).decrypt(bytes, codec);
        this.#note(uid, result.error ?? 'ok');
        if (!result.frame) return;
        frame.data = result.frame.buffer;
        controller.enqueue(frame);
      },
    });
  }
}
