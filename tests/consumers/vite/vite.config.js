// Vite: nothing to configure for a build. For `vite` (the dev server) the
// package is kept out of dependency pre-bundling, which would move
// element.js away from the files it loads next to itself.
export default {
  optimizeDeps: { exclude: ["agent-loop-playground"] },
};
