// Load the element in the browser only: the pages are also rendered in
// Node at build time, where there are no custom elements.
import DefaultTheme from "vitepress/theme";

export default {
  extends: DefaultTheme,
  enhanceApp() {
    if (!import.meta.env.SSR) import("agent-loop-playground");
  },
};
