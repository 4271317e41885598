// End-to-end encryption in the web SDK (docs/e2ee.md): `new SRTCChannel({e2ee: {keyProvider}})`
// encrypts every published frame and decrypts every subscribed one, in a worker
// (RTCRtpScriptTransform) where the browser has it, else on the page (`createEncodedStreams`).
import { E2EEContext } from './e2ee-transform.js';
import { sharedSecret } from './e2ee-sframe.js';

/** Where keys come from. `E2EEKeyProvider.sharedKey(passphrase)`: everyone with the passphrase. */
export class E2EEKeyProvider {
  static sharedKey(passphrase) { return new E2EEKeyProvider(passphrase); }

  constructor(passphrase) {
    /** The channel secret (PBKDF2 of the passphrase), derived once. */
    this.secret = sharedSecret(passphrase);
  }
}

/** Whether this browser has `RTCRtpScriptTransform` (else the connections need `encodedInsertableStreams`). */
export const hasScriptTransform = typeof RTCRtpScriptTransform !== 'undefined';

/** One channel's encryption: attaches transforms to senders and receivers and reports states. */
export class E2EEManager {
  #worker = null;
  #context = null;
  #attached = new WeakMap();
  #nextId = 1;

  /** @param report `(uid, state)` on each change of a participant's state. */
  constructor(options, report) {
    this.keyProvider = options.keyProvider;
    if (hasScriptTransform) {
      this.#worker = new Worker(new URL('./e2ee-worker.js', import.meta.url), { type: 'module' });
      this.#worker.onmessage = (e) => { if (e.data?.type === 'state') report(e.data.uid, e.data.state); };
    } else {
      this.#context = new E2EEContext(report);
    }
  }

  /** Called at join: frames flow once the secret is derived. */
  async start(uid) {
    const secret = await this.keyProvider.secret;
    if (this.#worker) this.#worker.postMessage({ type: 'configure', secret, uid });
    else this.#context.configure(secret, uid);
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

  close() { this.#worker?.terminate(); }
}
