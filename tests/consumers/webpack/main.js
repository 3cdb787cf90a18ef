// The whole recipe: import the package once; the element finds its
// WebAssembly module and stylesheet through the bundler.
import "agent-loop-playground";
