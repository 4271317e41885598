// SRTC web SDK: the one dispatcher of server events (docs/protocol.md, Events). The modules that
// apply events (channel-events, channel-reconnect) register the types they handle here when they
// load, so they never import one another to pass an event on (no import circles:
// interop/test_web_imports.py).

const handlers = new Map();

/** Registers `handler(ch, data)` for the server events `types`. */
export function onServerEvent(types, handler) {
  for (const type of types) handlers.set(type, handler);
}

/** Dispatches one server event; unknown types are logged and skipped (newer servers). */
export function handleEvent(ch, type, data) {
  const handler = handlers.get(type);
  if (handler) handler(ch, data);
  else ch._log('warn', `unknown event ${type}`);
}
