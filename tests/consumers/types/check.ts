// What a TypeScript app writes against the element: the types come with
// the package (element.d.ts); a wrong call here is a type error.
import "agent-loop-playground";
import type { AgentLoopPlaygroundAttributes, PlaygroundState } from "agent-loop-playground";

const el = document.querySelector("agent-loop-playground");
if (el) {
  el.addEventListener("playground-step", (e) => console.log(e.detail.step, e.detail.status));
  const state: PlaygroundState = el.command("step");
  const on: boolean = el.toggleBreakpoint("run_loop", "loop.ask");
  el.whatIf({ model: [{ stop_reason: "end_turn", content: [] }] });
  el.model = (request) => ({ stop_reason: "end_turn", content: [], echo: request.model });
  console.log(state.label, on, el.ready);
  const attributes: AgentLoopPlaygroundAttributes = { lang: "en-GB", listing: "rust", "heading-level": "2", predict: "" };
  for (const [name, value] of Object.entries(attributes)) el.setAttribute(name, value);
}
