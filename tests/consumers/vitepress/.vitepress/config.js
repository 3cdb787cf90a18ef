// VitePress: tell Vue that <agent-loop-playground> is a custom element
// (else it warns "Failed to resolve component").
export default {
  title: "A course",
  head: [["link", { rel: "icon", href: "data:," }]],
  vue: {
    template: { compilerOptions: { isCustomElement: (tag) => tag === "agent-loop-playground" } },
  },
};
