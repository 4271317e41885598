// SRTC web SDK: IM outside channels (docs/im.md): one-to-one messages, call signalling and
// notifications for the account. The WebSocket request/response machinery is the SDK's one
// SignalClient; this file adds login, in-order once-only delivery with acknowledgements, and
// resumption after a dropped connection.

import { Emitter } from './emitter.js';
import { SRTCError } from './errors.js';
import { signalingURL } from './models.js';
import { SignalClient } from './signal-client.js';
import { rememberSealKey } from './seal-keyring.js';

const IM_PATH = '/im/v1/ws';

/** The IM WebSocket URL of a server base URL (`http://host:7880` → `ws://host:7880/im/v1/ws`). */
export function imURL(url) {
  return signalingURL(url).replace(/\/rtc\/v1\/ws(\?|$)/, `${IM_PATH}$1`);
}

/**
 * The account's IM service. Events (`im.on(name, fn)` or `im.addDelegate(obj)`), named as the
 * Swift SDK's `IMDelegate`: `imDidConnect()`, `imIsReconnecting()`, `imDidDisconnect(error)`,
 * `imDidReceive(message)` — every mailbox entry (`kind`: `message`, `notification`,
 * `meeting_reminder`, `call_invite`, `call_accepted`, `call_declined`, `call_cancelled`,
 * `call_timeout`), in `seq` order, each once, acknowledged once the listeners ran.
 */
export class SRTCIm extends Emitter {
  constructor({ requestTimeoutMs = 10000, pingIntervalMs = 10000, reconnectDelaysMs = [0, 500, 1000, 2000, 4000], log = () => {} } = {}) {
    super();
    this.options = { requestTimeoutMs, pingIntervalMs, reconnectDelaysMs, log };
    this.uid = null;
    /** The seq of the last entry delivered (keep it to resume after it in a later page load). */
    this.lastSeq = 0;
    this._signal = null;
    this._closed = true;
    this._ticker = 0;
    this._reconnecting = null;
  }

  /** Whether IM is connected now (false while it reconnects). */
  get isConnected() { return !this._closed && Boolean(this._signal?.isOpen); }

  /**
   * Connects and logs in; resolves once logged in. Stored entries then arrive as `imDidReceive`.
   * @param {string} url the server's base URL. @param {string} token an IM token
   * (`POST /server/v1/im/grant`) or an SMeeting member token. @param {object} options `{lastSeq}`.
   */
  async enable(url, token, { lastSeq } = {}) {
    if (!this._closed) throw new SRTCError('wrongState', 'IM is already enabled');
    this._url = imURL(url);
    this._token = token;
    this._closed = false;
    if (Number.isInteger(lastSeq)) this.lastSeq = lastSeq;
    try {
      await this.#connect(Number.isInteger(lastSeq));
    } catch (e) {
      this._closed = true;
      throw e;
    }
  }

  /** Stops IM (`imDidDisconnect(null)`). */
  disable() {
    if (this._closed) return;
    this._closed = true;
    clearInterval(this._ticker);
    this._signal?.close(1000, 'IM disabled');
    this._signal = null;
    this.emit('imDidDisconnect', null);
  }

  /** Sends a message to `to` (a uid that has used IM). Resolves `{msgId, sentAt}`. */
  sendMessage(to, content) { return this.#request('send', { to, content }); }

  /** Invites `to` to a call; resolves `{callId, expiresAt}`. */
  invite(to, { channel, content, timeoutSeconds } = {}) {
    return this.#request('invite', { to, channel, content, timeout_seconds: timeoutSeconds });
  }

  accept(callId, content) { return this.#request('accept', { call_id: callId, content }); }
  decline(callId, content) { return this.#request('decline', { call_id: callId, content }); }
  cancel(callId, content) { return this.#request('cancel', { call_id: callId, content }); }

  #request(type, data) {
    if (this._closed) return Promise.reject(new SRTCError('wrongState', 'IM is not enabled'));
    if (!this.isConnected) return Promise.reject(new SRTCError('connectionFailed', 'IM is reconnecting'));
    return this._signal.request(type, data);
  }

  async #connect(resume) {
    const signal = new SignalClient(this._url, {
      requestTimeoutMs: this.options.requestTimeoutMs,
      log: this.options.log,
      onEvent: (type, data) => { if (signal === this._signal && type === 'message') this.#received(data); },
      onClose: () => { if (signal === this._signal) this.#lost(); },
    });
    await signal.connect();
    const lastSeq = resume || this.lastSeq > 0 ? this.lastSeq : undefined;
    let response;
    try {
      this._signal = signal;
      response = await signal.request('login', { token: this._token, last_seq: lastSeq, sdk: 'srtc-web' });
    } catch (e) {
      this._signal = null;
      signal.close(1000, 'login failed');
      throw e;
    }
    // The server's resume point is the truth; the replay follows the answer (handled after this).
    this.lastSeq = response.resumeFrom;
    this.uid = response.uid;
    // The user's seal key (docs/im.md, `login`), for `SRTCEngine.decrypt`.
    rememberSealKey(response.sealKey, response.uid, this._token);
    clearInterval(this._ticker);
    this._ticker = setInterval(() => {
      if (signal.isOpen && performance.now() - signal.lastSentAt >= this.options.pingIntervalMs * 0.9) {
        signal.request('ping', {}).catch(() => signal.close(1001, 'ping timeout'));
      }
    }, this.options.pingIntervalMs);
    this.emit('imDidConnect');
  }

  #received(message) {
    if (!Number.isInteger(message.seq) || message.seq <= this.lastSeq) return;
    this.lastSeq = message.seq;
    this.emit('imDidReceive', message);
    this._signal?.request('ack', { seq: message.seq }).catch(() => {});
  }

  #lost() {
    this._signal = null;
    clearInterval(this._ticker);
    if (this._closed || this._reconnecting) return;
    this.emit('imIsReconnecting');
    this._reconnecting = (async () => {
      for (let attempt = 0; !this._closed; attempt += 1) {
        const delays = this.options.reconnectDelaysMs;
        await new Promise((r) => setTimeout(r, delays[Math.min(attempt, delays.length - 1)]));
        if (this._closed) break;
        try {
          await this.#connect(true);
          break;
        } catch (e) {
          if ([40106, 40107, 40108].includes(e?.code)) {
            this._closed = true;
            this.emit('imDidDisconnect', e);
            break;
          }
        }
      }
      this._reconnecting = null;
    })();
  }
}
