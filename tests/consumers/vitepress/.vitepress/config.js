// VitePress: tell Vue that <agent-loop-playground> is a custom element
// (else it warns "Failed to resolve component"), and keep the package out
// of the dev server's dependency pre-bundling (`vitepress dev`), which
// would move element.js away from the module it loads next to itself
// (the page would then get HTML for the .wasm).
export default {
  title: "A course",
  head: [["link", { rel: "icon", href: "data:," }]],
  vue: {
    template: { compilerOptions: { isCustomElement: (tag) => tag === "agent-loop-playground" } },
  },
  vite: { optimizeDeps: { exclude: ["agent-loop-playground"] } },
  // (the test's own: the dev server's cache beside the tools, out of the
  // sources; a site's default is .vitepress/cache/)
  cacheDir: "../node_modules/.vitepress-cache",
};
