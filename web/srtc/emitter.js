// SRTC web SDK: events. Listeners by event name, catch-all listeners, and delegate objects
// (the JavaScript counterpart of the Swift SDK's `delegates.add(delegate:)`).

/**
 * A small event emitter. A listener that throws is reported on the console and never stops the
 * SDK or the other listeners.
 */
export class Emitter {
  #listeners = new Map();
  #any = new Set();
  #delegates = new Set();

  /** Calls `listener(...args)` on every `event`; returns a function that removes it. */
  on(event, listener) {
    if (typeof listener !== 'function') throw new TypeError('listener must be a function');
    let set = this.#listeners.get(event);
    if (!set) this.#listeners.set(event, (set = new Set()));
    set.add(listener);
    return () => this.off(event, listener);
  }

  /** Removes a listener added with `on`. */
  off(event, listener) {
    this.#listeners.get(event)?.delete(listener);
  }

  /** Calls `listener(event, ...args)` on every event; returns a function that removes it. */
  onAny(listener) {
    this.#any.add(listener);
    return () => this.#any.delete(listener);
  }

  /**
   * Resolves with the arguments (an array) of the next `event` for which `predicate(...args)` is
   * true; rejects after `timeoutMs` (default: wait forever).
   */
  waitFor(event, predicate = () => true, timeoutMs = 0) {
    return new Promise((resolve, reject) => {
      let timer = 0;
      const off = this.on(event, (...args) => {
        let match = false;
        try { match = predicate(...args); } catch (e) { /* a throwing predicate is no match */ }
        if (!match) return;
        off();
        clearTimeout(timer);
        resolve(args);
      });
      if (timeoutMs > 0) {
        timer = setTimeout(() => { off(); reject(new Error(`no ${event} within ${timeoutMs} ms`)); }, timeoutMs);
      }
    });
  }

  /**
   * Adds an object whose methods named after events are called with the emitter first:
   * `{ userDidJoin(channel, user) {…} }`. Missing methods are skipped.
   */
  addDelegate(delegate) { this.#delegates.add(delegate); }

  /** Removes an object added with `addDelegate`. */
  removeDelegate(delegate) { this.#delegates.delete(delegate); }

  /** Delivers `event` to its listeners, the catch-all listeners and the delegates. */
  emit(event, ...args) {
    for (const listener of [...(this.#listeners.get(event) ?? [])]) this.#call(event, () => listener(...args));
    for (const listener of [...this.#any]) this.#call(event, () => listener(event, ...args));
    for (const delegate of [...this.#delegates]) {
      if (typeof delegate[event] === 'function') this.#call(event, () => delegate[event](this, ...args));
    }
  }

  #call(event, fn) {
    try {
      fn();
    } catch (error) {
      console.error(`[srtc] a listener of ${event} threw`, error);
    }
  }
}
