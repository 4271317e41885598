// SMeeting web SDK: events. The engine is an `EventTarget`: every event is a `CustomEvent` whose
// `detail` carries the arguments (`meeting.addEventListener('userDidEnter', (e) => e.detail.user)`).

/** An `EventTarget` with the conveniences the SDK and apps use. */
export class MeetingEventTarget extends EventTarget {
  /** Adds a listener of `type` called with the `CustomEvent`; returns a function that removes it. */
  on(type, listener) {
    this.addEventListener(type, listener);
    return () => this.removeEventListener(type, listener);
  }

  /**
   * Resolves with the `detail` of the next `type` event for which `predicate(detail)` is true;
   * rejects after `timeoutMs` (0: wait forever).
   */
  waitFor(type, predicate = () => true, timeoutMs = 0) {
    return new Promise((resolve, reject) => {
      let timer = 0;
      const listener = (event) => {
        let match = false;
        try { match = predicate(event.detail); } catch (e) { /* a throwing predicate is no match */ }
        if (!match) return;
        this.removeEventListener(type, listener);
        clearTimeout(timer);
        resolve(event.detail);
      };
      this.addEventListener(type, listener);
      if (timeoutMs > 0) {
        timer = setTimeout(() => { this.removeEventListener(type, listener); reject(new Error(`no ${type} within ${timeoutMs} ms`)); }, timeoutMs);
      }
    });
  }

  /** Dispatches `type` with `detail`. A listener that throws is reported by the browser and stops nothing. */
  emit(type, detail = {}) {
    this.dispatchEvent(new CustomEvent(type, { detail }));
  }
}

/** Copies the methods and accessors of `sources` onto `target.prototype` (the engine's concerns live in separate files). */
export function mixin(target, ...sources) {
  for (const source of sources) Object.defineProperties(target.prototype, Object.getOwnPropertyDescriptors(source));
}
