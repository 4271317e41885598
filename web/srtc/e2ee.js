// End-to-end encryption in the web SDK (docs/e2ee.md): `new SRTCChannel({e2ee: {keyProvider}})`
// encrypts every published frame and decrypts every subscribed one, in a worker
// (RTCRtpScriptTransform) where the browser has it, else on the page (`createEncodedStreams`).
import { E2EEContext } from './e2ee-transform.js';
import { sharedSecret } from './e2ee-sframe.js';

/**
 * Where keys come from. `E2EEKeyProvider.sharedKey(passphrase)`: everyone with the passphrase.
 * `E2EEKeyProvider.perParticipant({ratchetWindowMs})`: the app gives each sender's keys with
 * `setKey(uid, bytes, index)` (its own included) and `removeKeys(uid)`; a sender sends under its
 * highest index, and a newer key retires the older ones after the window.
 */
export class E2EEKeyProvider {
  static sharedKey(passphrase) { return new E2EEKeyProvider({ secret: sharedSecret(passphrase) }); }
  static perParticipant({ ratchetWindowMs = 10000 } = {}) { return new E2EEKeyProvider({ keys: new Map(), ratchetWindowMs }); }

  constructor({ secret = null, keys = null, ratchetWindowMs = 10000 }) {
    /** The channel secret (PBKDF2 of the passphrase), derived once; null per participant. */
    this.secret = secret;
    this.keys = keys;
    this.ratchetWindowMs = ratchetWindowMs;
    this.listeners = new Set();
  }

  /** Gives `uid`'s key number `index` (0–255; `bytes`: a Uint8Array of at least 16 random bytes). */
  setKey(uid, bytes, index = 0) {
    if (!this.keys || !(index >= 0 && index <= 255)) return;
    const mine = this.keys.get(uid) ?? new Map();
    mine.set(index, Uint8Array.from(bytes));
    this.keys.set(uid, mine);
    for (const listener of this.listeners) listener(uid, index, mine.get(index));
  }

  /** Forgets every key of `uid` (a member who left). */
  removeKeys(uid) {
    if (!this.keys) return;
    this.keys.delete(uid);
    for (const listener of this.listeners) listener(uid, 0, null);
  }

  /** The settings a context starts from (`E2EEContext.configure`). */
  async settings(uid) {
    if (this.secret) return { uid, secret: await this.secret };
    const keys = {};
    for (const [owner, byIndex] of this.keys) keys[owner] = [...byIndex].map(([index, bytes]) => [index, { bytes, retiredAt: null }]);
    return { uid, keys, ratchetWindowMs: this.ratchetWindowMs };
  }
}

/** Whether this browser has `RTCRtpScriptTransform` (else the connections need `encodedInsertableStreams`). */
export const hasScriptTransform = typeof RTCRtpScriptTransform !== 'undefined';

/** One channel's encryption: attaches transforms to senders and receivers and reports states. */
export class E2EEManager {
  #worker = null;
  #context = null;
  /** Where data messages are encrypted and decrypted: on the page (the worker's context, if there is no worker). */
  #dataContext = null;
  /** Data messages are sealed and opened one at a time, in order (reliable messages keep their order). */
  #sendChain = Promise.resolve();
  #receiveChain = Promise.resolve();
  #attached = new WeakMap();
  #nextId = 1;

  /** @param report `(uid, state)` on each change of a participant's state. */
  constructor(options, report) {
    this.keyProvider = options.keyProvider;
    if (hasScriptTransform) {
      this.#worker = new Worker(new URL('./e2ee-worker.js', import.meta.url), { type: 'module' });
      this.#worker.onmessage = (e) => { if (e.data?.type === 'state') report(e.data.uid, e.data.state); };
      this.#dataContext = new E2EEContext(() => {});
    } else {
      this.#context = new E2EEContext(report);
      this.#dataContext = this.#context;
    }
    this.keyProvider.listeners.add((uid, index, bytes) => {
      if (this.#worker) this.#worker.postMessage({ type: 'setKey', uid, index, bytes });
      this.#dataContext.setKey(uid, index, bytes);
    });
  }

  /** Called at join: frames flow once the keys are there. */
  async start(uid) {
    const settings = await this.keyProvider.settings(uid);
    if (this.#worker) this.#worker.postMessage({ type: 'configure', settings });
    this.#dataContext.configure(settings);
  }

  /** The encrypted payload of a data message (resolves in call order), or null without a key to send under yet. */
  encryptData(payload, topicBytes) {
    const sealed = this.#sendChain.then(() => this.#dataContext.encryptData(payload, topicBytes));
    this.#sendChain = sealed.catch(() => {});
    return sealed;
  }

  /** `{frame}` or `{error}` for an encrypted data payload from `uid`. */
  decryptData(uid, bytes, topicBytes) { return this.#dataContext.decryptData(uid, bytes, topicBytes); }

  /** Runs `task` once the data messages that arrived before have been handed on: they keep their order. */
  inReceiveOrder(task) {
    const run = this.#receiveChain.then(task);
    this.#receiveChain = run.catch(() => {});
    return run;
  }

  /** Encrypts what `sender` sends (`kind`: `audio` or `video`). */
  attachSender(sender, kind) { this.#attach(sender, 'encrypt', kind, null); }

  /** Decrypts what `receiver` receives, as frames of participant `uid` (again when it is reused for another). */
  attachReceiver(receiver, kind, uid) { this.#attach(receiver, 'decrypt', kind, uid); }

  #attach(endpoint, operation, kind, uid) {
    let attached = this.#attached.get(endpoint);
    if (!attached) {
      attached = { id: this.#nextId++, target: { uid } };
      this.#attached.set(endpoint, attached);
      if (this.#worker) {
        endpoint.transform = new RTCRtpScriptTransform(this.#worker, { operation, kind, id: attached.id });
      } else {
        const { readable, writable } = endpoint.createEncodedStreams();
        readable.pipeThrough(this.#context.transform(operation, kind, attached.target)).pipeTo(writable).catch(() => {});
      }
    }
    attached.target.uid = uid;
    if (this.#worker && uid) this.#worker.postMessage({ type: 'target', id: attached.id, uid });
  }

  /** Drops what was kept to decrypt `uid`, who left the channel. */
  forget(uid) {
    if (this.#worker) this.#worker.postMessage({ type: 'forget', uid });
    this.#dataContext.forget(uid);
  }

  close() { this.#worker?.terminate(); }
}
