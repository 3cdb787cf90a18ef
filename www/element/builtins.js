// @ts-check
// The built-ins the element and its doubles call, as the page had them when
// this module loaded. A host page that replaces one later (a test double,
// an analytics wrapper, plain sabotage) changes nothing here: the element
// calls these. Methods are kept uncurried (`push(list, value)` is the
// page's original Array.prototype.push called on `list`), through the
// original Reflect.apply, so that neither the method nor Function.prototype
// .call is looked up again. What a page broke before this module loaded is
// found by probe.js, which tries each of them once.
//
// Not kept (a page that breaks them still reaches the element): the
// iteration protocol (`for … of`, spread), property getters (a Response's
// `ok`, a Set's `size`), URL (bundlers only rewrite the literal `new
// URL("./file", import.meta.url)`), and the DOM members besides those below
// (keeper.js builds a playground again when one of them kills it).

const global = globalThis;

// (`@__NO_SIDE_EFFECTS__`: a bundle that imports a few of these, such as
// doubles.js, keeps only those)

/**
 * `target[key]` as it is now, or undefined when reading it throws (a getter
 * the page broke): a call to a missing built-in then throws where it is
 * made, and probe.js names it.
 * @param {any} target
 * @param {string} key
 * @returns {any}
 */
/* @__NO_SIDE_EFFECTS__ */ function pick(target, key) {
  try {
    return target[key];
  } catch {
    return undefined;
  }
}

/** @type {typeof Reflect.apply} */
export const apply = pick(Reflect, "apply");

/**
 * A method as a function of its receiver: `uncurry(Array.prototype.push)(list, x)`.
 * @template {(...args: any[]) => any} F
 * @param {F} method
 * @returns {(self: unknown, ...args: Parameters<F>) => ReturnType<F>}
 */
/* @__NO_SIDE_EFFECTS__ */ function uncurry(method) {
  return (self, ...args) => apply(method, self, args);
}

/**
 * A method of a constructor's prototype, uncurried (a stand-in that throws
 * when it is missing).
 * @param {any} constructor
 * @param {string} key
 * @returns {(self: any, ...args: any[]) => any}
 */
const method = /* @__NO_SIDE_EFFECTS__ */ (constructor, key) => uncurry(pick(pick(constructor, "prototype"), key));

// The global constructors and functions (a module binding of the same name
// stands for the global wherever it is imported).
const P = /** @type {PromiseConstructor} */ (pick(global, "Promise"));
export { P as Promise };
export const Error = /** @type {ErrorConstructor} */ (pick(global, "Error"));
export const TypeError = /** @type {TypeErrorConstructor} */ (pick(global, "TypeError"));
export const Set = /** @type {SetConstructor} */ (pick(global, "Set"));
export const String = /** @type {StringConstructor} */ (pick(global, "String"));
export const Number = /** @type {NumberConstructor} */ (pick(global, "Number"));
export const CustomEvent = /** @type {typeof globalThis.CustomEvent} */ (pick(global, "CustomEvent"));
export const Response = /** @type {typeof globalThis.Response} */ (pick(global, "Response"));
export const Headers = /** @type {typeof globalThis.Headers} */ (pick(global, "Headers"));
export const TextDecoder = /** @type {typeof globalThis.TextDecoder} */ (pick(global, "TextDecoder"));
export const AbortController = /** @type {typeof globalThis.AbortController} */ (pick(global, "AbortController"));
/** @type {typeof WebAssembly.RuntimeError | undefined} */
export const RuntimeError = pick(pick(global, "WebAssembly"), "RuntimeError");

// JSON, and the statics of Array, Object and Reflect.
/** @type {typeof JSON.parse} */
export const parse = pick(JSON, "parse");
/** @type {typeof JSON.stringify} */
export const stringify = pick(JSON, "stringify");
/** @type {typeof Array.isArray} */
export const isArray = pick(Array, "isArray");
/** @type {typeof ArrayBuffer.isView} */
export const isView = pick(ArrayBuffer, "isView");
/** @type {typeof Object.assign} */
export const assign = pick(Object, "assign");
/** @type {typeof Object.hasOwn} */
export const hasOwn = pick(Object, "hasOwn");
/** @type {typeof Object.getPrototypeOf} */
export const getPrototypeOf = pick(Object, "getPrototypeOf");
/** @type {typeof Object.setPrototypeOf} */
const setPrototypeOf = pick(Object, "setPrototypeOf");
/** @type {typeof Object.freeze} */
export const freeze = pick(Object, "freeze");
/** @type {typeof Reflect.get} */
export const get = pick(Reflect, "get");

// Methods, uncurried.
export const push = method(Array, "push");
export const pop = method(Array, "pop");
export const map = method(Array, "map");
export const filter = method(Array, "filter");
export const flatMap = method(Array, "flatMap");
export const every = method(Array, "every");
export const some = method(Array, "some");
export const includes = method(Array, "includes");
export const indexOf = method(Array, "indexOf");
export const splice = method(Array, "splice");
export const slice = method(Array, "slice");
export const join = method(Array, "join");
export const split = method(String, "split");
export const trim = method(String, "trim");
export const toLowerCase = method(String, "toLowerCase");
export const textSlice = method(String, "slice");
export const replace = method(String, "replace");
export const test = method(RegExp, "test");
export const exec = method(RegExp, "exec");
export const then = method(P, "then");
export const setHas = method(Set, "has");
export const setAdd = method(Set, "add");
export const decode = method(TextDecoder, "decode");
export const charCodeAt = method(String, "charCodeAt");
export const encodeInto = method(pick(global, "TextEncoder"), "encodeInto");
export const call = method(Function, "call");
export const responseText = method(Response, "text");
export const getReader = method(pick(global, "ReadableStream"), "getReader");
export const read = method(pick(global, "ReadableStreamDefaultReader"), "read");
export const cancel = method(pick(global, "ReadableStreamDefaultReader"), "cancel");
export const headerOf = method(Headers, "get");
export const define = method(pick(global, "CustomElementRegistry"), "define");
export const definedAs = method(pick(global, "CustomElementRegistry"), "get");
export const attachShadow = method(pick(global, "Element"), "attachShadow");
export const appendChild = method(pick(global, "Node"), "appendChild");
export const append = method(pick(global, "DocumentFragment"), "append");
export const replaceChildren = method(pick(global, "Element"), "replaceChildren");
export const replaceInFragment = method(pick(global, "DocumentFragment"), "replaceChildren");
export const createElement = method(pick(global, "Document"), "createElement");
export const dispatchEvent = method(pick(global, "EventTarget"), "dispatchEvent");
export const listen = method(pick(global, "EventTarget"), "addEventListener");
export const postMessage = method(pick(global, "Worker"), "postMessage");
const mark = method(pick(global, "Performance"), "mark");

// The page's timers and its fetch (called as the page's own functions).
const timer = pick(global, "setTimeout");
const untimer = pick(global, "clearTimeout");
const microtask = pick(global, "queueMicrotask");
const frame = pick(global, "requestAnimationFrame");
const unframe = pick(global, "cancelAnimationFrame");
const fetcher = pick(global, "fetch");
const timeoutSignal = pick(pick(global, "AbortSignal"), "timeout");
const resolve = pick(P, "resolve");

/** @param {(...args: any[]) => void} f @param {number} [ms] @returns {number} */
export const setTimeout = (f, ms) => apply(timer, global, [f, ms]);
/** @param {number | undefined} id */
export const clearTimeout = (id) => apply(untimer, global, [id]);
/** @param {() => void} f */
export const queueMicrotask = (f) => apply(microtask, global, [f]);
/** @param {FrameRequestCallback} f @returns {number} */
export const requestAnimationFrame = (f) => apply(frame, global, [f]);
/** @param {number} id */
export const cancelAnimationFrame = (id) => apply(unframe, global, [id]);
/** @param {URL | string} url @param {RequestInit} init @returns {Promise<Response>} */
export const fetch = (url, init) => apply(fetcher, global, [url, init]);
/** @param {number} ms @returns {AbortSignal} */
export const timeoutAfter = (ms) => apply(timeoutSignal, pick(global, "AbortSignal"), [ms]);
/** A promise already resolved with `value` (the original Promise.resolve). @template T @param {T} [value] @returns {Promise<Awaited<T>>} */
export const resolved = (value) => apply(resolve, P, [value]);

/**
 * Settles once every promise of `list` has fulfilled, or rejects with the
 * first rejection: Promise.all, with the original `then`, and handing over
 * nothing (an array would be asked for a `then` the page may have given
 * every object); callers keep what each promise gives themselves.
 * @param {unknown[]} list
 * @returns {Promise<void>}
 */
export function all(list) {
  return new P((ok, ko) => {
    let left = list.length;
    if (!left) ok();
    for (let i = 0; i < list.length; i++) then(resolved(list[i]), () => --left || ok(), ko);
  });
}

/**
 * Settles as the first promise of `list` settles (fulfilled: with
 * nothing): Promise.race, with the original `then`.
 * @param {unknown[]} list
 * @returns {Promise<void>}
 */
export function race(list) {
  return new P((ok, ko) => {
    for (let i = 0; i < list.length; i++) then(resolved(list[i]), () => ok(), ko);
  });
}

/**
 * A performance mark for the benchmark (bench/time-profile.mjs), or none
 * where the page broke them.
 * @param {string} name
 */
export function markTime(name) {
  try {
    mark(performance, name);
  } catch {}
}

/**
 * The same object or array, without a prototype: a promise resolved with
 * it never asks it for a `then` the page may have given every object
 * (Object.prototype.then), so it cannot be taken for a promise.
 * @template {object} T
 * @param {T} value
 * @returns {T}
 */
export const plain = (value) => apply(setPrototypeOf, Object, [value, null]);

/**
 * What the page made every object answer to `then`, if it did: no promise
 * resolved with an object of the page's (a fetched Response, a module's
 * instance) settles then. "" when none.
 */
export function thenEverywhere() {
  if ("then" in Object.prototype) return "Object.prototype.then";
  if ("then" in Array.prototype) return "Array.prototype.then";
  if (Response && "then" in Response.prototype) return "Response.prototype.then";
  return "";
}
