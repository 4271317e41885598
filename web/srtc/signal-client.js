// SRTC web SDK: one signaling WebSocket (docs/protocol.md): requests with ids, one response per
// request (correlated by id, with a timeout), and pushed events.

import { SRTCError } from './errors.js';
import { camelize } from './models.js';

/**
 * A WebSocket to `/rtc/v1/ws` (or the meeting's `/stm/v1/ws`). `onEvent(type, data, seq)` gets
 * events (`seq`: the event's number where the protocol numbers them, else undefined); `onClose(info)`
 * the close, once.
 */
export class SignalClient {
  #ws = null;
  #nextId = 1;
  #pending = new Map();
  #closed = false;

  /**
   * @param {string} url the signaling WebSocket URL.
   * @param {object} options `{requestTimeoutMs, log, onEvent, onClose}`.
   */
  constructor(url, { requestTimeoutMs = 10000, log = () => {}, onEvent = () => {}, onClose = () => {} } = {}) {
    this.url = url;
    this.requestTimeoutMs = requestTimeoutMs;
    this.log = log;
    this.onEvent = onEvent;
    this.onClose = onClose;
    /** `performance.now()` of the last request sent (the channel pings when idle). */
    this.lastSentAt = 0;
    /** The round trip of the last answered request, ms (undefined before one): how long a
     * check of the connection may wait for its answer. */
    this.lastRttMs = undefined;
  }

  /** Opens the WebSocket; rejects with `connectionFailed` or `timeout`. */
  connect(timeoutMs = 10000) {
    return new Promise((resolve, reject) => {
      let settled = false;
      let ws;
      try {
        ws = new WebSocket(this.url);
      } catch (e) {
        reject(new SRTCError('connectionFailed', `cannot open ${this.url}: ${e.message}`, { cause: e }));
        return;
      }
      this.#ws = ws;
      const timer = setTimeout(() => {
        if (settled) return;
        settled = true;
        this.close(1000, 'connect timeout');
        reject(new SRTCError('timeout', `no WebSocket connection to ${this.url} within ${timeoutMs} ms`));
      }, timeoutMs);
      ws.onopen = () => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        resolve();
      };
      ws.onmessage = (e) => this.#receive(e.data);
      ws.onclose = (e) => {
        clearTimeout(timer);
        if (!settled) {
          settled = true;
          reject(new SRTCError('connectionFailed', `WebSocket to ${this.url} closed (${e.code}${e.reason ? ' ' + e.reason : ''})`));
        }
        this.#finish({ code: e.code, reason: e.reason, byClient: false });
      };
      ws.onerror = () => this.log('debug', 'WebSocket error');
    });
  }

  /** Whether the socket is open and usable. */
  get isOpen() { return !this.#closed && this.#ws?.readyState === WebSocket.OPEN; }

  /**
   * Sends request `type` with `data`; resolves with the response's data (camelCase) or rejects
   * with the server's `{code, message}` as an `SRTCError` of kind `server`, or `timeout`.
   */
  request(type, data, { timeoutMs = this.requestTimeoutMs } = {}) {
    if (!this.isOpen) return Promise.reject(new SRTCError('connectionFailed', `signaling is not connected (${type})`));
    const id = this.#nextId++;
    const message = data === undefined ? { id, type } : { id, type, data };
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.#pending.delete(id);
        reject(new SRTCError('timeout', `no answer to ${type} within ${timeoutMs} ms`));
      }, timeoutMs);
      this.#pending.set(id, { type, resolve, reject, timer, sentAt: performance.now() });
      this.lastSentAt = performance.now();
      this.#ws.send(JSON.stringify(message));
    });
  }

  /** Closes the socket; pending requests reject with `connectionFailed`. `onClose` still runs once. */
  close(code = 1000, reason = '') {
    const ws = this.#ws;
    if (ws && ws.readyState <= WebSocket.OPEN) {
      try { ws.close(code, reason); } catch (e) { /* already closing */ }
    }
    this.#finish({ code, reason, byClient: true });
  }

  #finish(info) {
    if (this.#closed) return;
    this.#closed = true;
    for (const [, p] of this.#pending) {
      clearTimeout(p.timer);
      p.reject(new SRTCError('connectionFailed', `signaling closed before the answer to ${p.type}`));
    }
    this.#pending.clear();
    this.onClose(info);
  }

  #receive(text) {
    if (this.#closed) return;
    let message;
    try {
      message = JSON.parse(text);
    } catch (e) {
      this.log('warn', 'signaling message is not JSON');
      return;
    }
    if (message === null || typeof message !== 'object' || typeof message.type !== 'string') {
      this.log('warn', 'signaling message without type');
      return;
    }
    if (Number.isInteger(message.id)) {
      const pending = this.#pending.get(message.id);
      if (!pending) {
        this.log('debug', `answer to unknown request ${message.id} (${message.type})`);
        return;
      }
      this.#pending.delete(message.id);
      clearTimeout(pending.timer);
      this.lastRttMs = performance.now() - pending.sentAt;
      if (message.ok === false || message.error) pending.reject(SRTCError.server(message.error));
      else pending.resolve(camelize(message.data ?? {}));
      return;
    }
    this.onEvent(message.type, camelize(message.data ?? {}), Number.isInteger(message.seq) ? message.seq : undefined);
  }
}
