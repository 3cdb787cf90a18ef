// @ts-check
// The theme follows the host page's declared color-scheme (an mdBook
// theme, a dark course site), else the reader's system; theme="light|dark"
// wins (element.css reads it).
import { includes, indexOf, push, splice, split } from "./builtins.js";

/** An element that follows the page: told when the page's scheme may have changed.
 *  @typedef {{_followScheme(): void}} Follower */

/** @type {Follower[]} */
const following = [];
/** @type {MutationObserver | null} */
let observer = null;
// Read once per change of the page (reading a computed style costs a style
// pass over the whole page, playgrounds included): cached until <html> or
// <body> changes.
/** @type {"dark" | "light" | "" | null} */
let pageScheme = null;

/** The page's declared color-scheme: "dark", "light", or "" (none, or both). */
export function schemeOfPage() {
  if (pageScheme === null) {
    const from = document.body || document.documentElement;
    const words = split(getComputedStyle(from).colorScheme || "normal", /\s+/);
    const dark = includes(words, "dark");
    const light = includes(words, "light");
    pageScheme = dark && !light ? "dark" : light && !dark ? "light" : "";
  }
  return pageScheme;
}

/**
 * Start (`on`) or stop following the page's scheme: one observer for the
 * page while any element follows it.
 * @param {Follower} el
 * @param {boolean} on
 */
export function followPage(el, on) {
  const at = indexOf(following, el);
  if (on && at < 0) push(following, el);
  if (!on && at >= 0) splice(following, at, 1);
  if (following.length && !observer) {
    // Course sites switch themes with a class or attribute on <html> or <body>.
    observer = new MutationObserver(() => {
      pageScheme = null;
      for (let i = 0; i < following.length; i++) following[i]._followScheme();
    });
    const watch = { attributes: true, attributeFilter: ["class", "style", "data-theme", "data-color-scheme"] };
    observer.observe(document.documentElement, watch);
    if (document.body) observer.observe(document.body, watch);
  } else if (!following.length && observer) {
    observer.disconnect();
    observer = null;
  }
}
