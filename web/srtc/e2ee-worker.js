// The E2EE worker: RTCRtpScriptTransform runs each sender's and receiver's transform here, off the
// page's thread. The page sends `configure` (own uid and the keys), `setKey` (a per-participant
// key given or removed), `target` (a receiver's participant changed) and `forget` (a participant
// left); the worker posts
// `{type: 'state', uid, state}` back.
import { E2EEContext } from './e2ee-transform.js';

const context = new E2EEContext((uid, state) => self.postMessage({ type: 'state', uid, state }));
const targets = new Map();

self.onmessage = (event) => {
  const message = event.data;
  if (message.type === 'configure') context.configure(message.settings);
  if (message.type === 'setKey') context.setKey(message.uid, message.index, message.bytes);
  if (message.type === 'target') targets.set(message.id, message.uid);
  if (message.type === 'forget') context.forget(message.uid);
};

self.onrtctransform = (event) => {
  const transformer = event.transformer;
  const { operation, kind, id } = transformer.options;
  const target = { get uid() { return targets.get(id) ?? null; } };
  transformer.readable.pipeThrough(context.transform(operation, kind, target)).pipeTo(transformer.writable).catch(() => {});
};
