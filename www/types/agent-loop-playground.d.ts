// The wasm-bindgen glue Trunk writes beside element.js
// (`agent-loop-playground.js`, the exports of src/handle.rs), as far as the
// element uses it: for the type check of www/ only (tsconfig.json), never
// shipped. tests/js/check.mjs fails when a method named here is not one
// that src/handle.rs exports.

import type { PlaygroundState, WhatIfEdit } from "../element.js";

/** The module's exports once it is instantiated. */
export interface InitOutput {
  readonly memory: WebAssembly.Memory;
}

/** Instantiates the module (fetched from `module_or_path`). */
export default function init(options?: { module_or_path?: URL | string | Response | BufferSource | WebAssembly.Module }): Promise<InitOutput>;

/** A file the element fetched, as the playground takes it. */
export type FetchedFile =
  | { name: string; text: string }
  | { name: string; error: string; detail: string };

/** An author's listing the element fetched (`lang` empty for any language). */
export type FetchedListing = FetchedFile & { lang: string };

/** A callback the playground calls (a model or a process). */
export type Callback = (...args: unknown[]) => unknown;

/** A scenario's script as the playground hands it to the doubles (src/callbacks.rs). */
export interface Script {
  model?: unknown;
  process?: unknown;
  no_more_runs?: string;
}

/** What doubles.js's fixtureDoubles makes of a scenario's script. */
export interface Doubles {
  model: Callback;
  process: Callback;
}

/** `new Playground(root, options)`: src/handle.rs reads these keys. */
export interface PlaygroundOptions {
  /** Every attribute handed over as given, by its `option` key (www/element/attributes.js). */
  [option: string]: unknown;
  doubles: (script: Script | null) => Doubles;
  files: FetchedFile[];
  listings: FetchedListing[];
  programSrc: FetchedFile | null;
  width: number;
  restarted: string;
  waiting: string;
  /** Long src= files being recorded meanwhile (in the worker), between spaces. */
  recording: string;
}

/** One playground in one element (src/handle.rs). */
/** An author's file recorded here for another instance of the module (src/worker.rs): the run as bytes, or undefined. */
export function recordElsewhere(doubles: Function, text: string, options: { lang: string; timeBudget: string; memoryBudget: string }): Uint8Array | undefined;
/** Keep a run another instance recorded, for every playground of the page; false when the bytes are not such a run. */
export function giveRun(bytes: Uint8Array, readNow: boolean): boolean;
/** One slice more of a run given to be read now; true while there is more. */
export function readGiven(): boolean;
/** Parse a long file's text now, for the task that opens it next. */
export function parseAhead(text: string): void;
/** How many recordings this instance has made. */
export function recordingsHere(): number;

export class Playground {
  constructor(root: HTMLElement, options: PlaygroundOptions);
  free(): void;
  static addPack(name: string, text: string): string;
  isBusy(): boolean;
  lastPlace(): string;
  state(): PlaygroundState | null;
  command(name: string): PlaygroundState;
  toggleBreakpoint(fn: string, line: number | string): boolean;
  again(name: "breakpoints" | "step", value: string): void;
  load(scenarioId: string): void;
  packUnavailable(file: string, detail: string, pack: string): void;
  addScenario(fixture: string): string;
  flush(): void;
  addScenarioFile(name: string, text: string): string;
  fileUnreadable(name: string, why: string, detail: string): void;
  fileRecording(name: string): void;
  relayout(width: number): void;
  setPredict(on: boolean): PlaygroundState;
  answer(choice: number): Record<string, unknown>;
  tryAgain(): PlaygroundState;
  whatIf(edit: unknown): PlaygroundState;
  currentEdit(): WhatIfEdit | null;
  setModel(model: Callback | null): void;
  setProcess(process: Callback | null): void;
  setLang(lang: string): void;
  setListing(name: string): void;
  seek(position: number): void;
  currentStep(): Record<string, unknown> | null;
  outcome(): { result: unknown; error: unknown; output: string[] } | null;
}

/** The names of the playground's methods (what the element's `_call` takes). */
export type Method = { [K in keyof Playground]: Playground[K] extends (...args: never[]) => unknown ? K : never }[keyof Playground];
