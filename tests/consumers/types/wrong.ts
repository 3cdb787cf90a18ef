// A wrong call the types must refuse (the spec expects tsc to fail here).
import "agent-loop-playground";
const el = document.querySelector("agent-loop-playground")!;
el.command("jump");
