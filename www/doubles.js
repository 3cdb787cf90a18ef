// @ts-check
// Fixture doubles for the browser: the model and the process as plain
// JavaScript functions, scripted by a scenario fixture (the same JSON the
// Rust doubles in core/src/scenario/ read). They are injected into the wasm
// core as callbacks; nothing here calls an API or starts a process.
//
//   model(request)             -> response object, or throws (error by name)
//   process(command, options)  -> {returncode, stdout, stderr} | {timeout: true} | {os_error: "…"}
//
// Both must be synchronous. A course page may pass its own functions of
// the same shape (el.model = …, el.process = …).
//
// The built-ins they call are the page's as they were when this module
// loaded, kept here (as www/element/builtins.js keeps the element's): a
// page that replaces JSON.parse or Array.isArray later changes nothing.
// (This file imports nothing: the browser tests load it as it is.)
const { parse, stringify } = JSON;
const { isArray } = Array;
const { Error } = globalThis;

/**
 * An error with a name (the model's error class, as the SDK names it).
 * @param {string} name
 * @param {string} message
 */
function named(name, message) {
  const error = new Error(message);
  error.name = name;
  return error;
}

/**
 * The model and the process a scenario's script describes.
 * @param {import("./agent-loop-playground.js").Script | null | undefined} fixture
 */
export function fixtureDoubles(fixture) {
  const scripted = fixture ? fixture.model : undefined;
  /** @type {unknown[]} */
  const replies = isArray(scripted) ? scripted : [];
  let nextReply = 0;
  /** @param {unknown} request */
  function model(request) {
    if (nextReply >= replies.length) {
      // (no message: the setup's stand-in raises the bare exception)
      throw named("ScriptExhausted", "");
    }
    const reply = replies[nextReply++];
    if (reply && typeof reply === "object" && "error" in reply && typeof reply.error === "string") {
      throw named(reply.error, "");
    }
    // Untouched, but a copy: the core must not be able to edit the script.
    return parse(stringify(reply));
  }

  const script = fixture ? fixture.process : undefined;
  let nextRun = 0;
  /**
   * @param {unknown} command
   * @param {unknown} options
   */
  function process(command, options) {
    const run = isArray(script) ? script[nextRun] : script;
    nextRun += 1;
    if (run === undefined) {
      // (in the scenario's language: the run writes it into the record)
      throw new Error(fixture?.no_more_runs || "the fixture has no more process outcomes");
    }
    return parse(stringify(run));
  }

  return { model, process };
}
