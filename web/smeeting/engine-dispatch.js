// SMeeting web SDK: the one dispatcher of meeting events (docs/meeting-protocol.md, Events). Each
// concern module (engine-events, engine-waiting, engine-sub-meetings, engine-sign-in) registers
// the event types it handles here when it loads, so the modules that apply events never import
// one another to pass an event on (no import circles: interop/test_web_imports.py).

/** Handlers by phase: `any` whatever my state, `room` once in the meeting, `waiting` while I wait. */
const handlers = { any: new Map(), room: new Map(), waiting: new Map() };

/** Registers `handler(engine, type, data)` for `types` in `phase` ('any', 'room' or 'waiting'). */
export function onMeetingEvent(phase, types, handler) {
  for (const type of types) handlers[phase].set(type, handler);
}

/** One meeting event in a meeting or its waiting room. Unknown types are logged and skipped (newer servers). */
export function handleMeetingEvent(engine, type, data) {
  const waiting = Boolean(engine._waiting);
  const handler = handlers.any.get(type) ?? handlers[waiting ? 'waiting' : 'room'].get(type);
  if (handler) handler(engine, type, data);
  else if (waiting) engine._log('debug', `${type} while waiting: skipped`);
  else engine._log('warn', `unknown meeting event ${type}`);
}
