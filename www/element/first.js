// @ts-check
// The first view a page may carry inside the element (agent-loop-cli
// first-view): a declarative shadow root the browser paints with the page,
// before any module has loaded. It stays while the module loads only if it
// was made for the element's attributes and language; otherwise it goes at
// once, unseen where it can be (before the page's first paint). The
// playground's first draw takes its place in the same task (base.js), so
// nothing blank is ever painted between the two.
import { ATTRIBUTES } from "./attributes.js";
import { elementSheet } from "./style.js";
import { langWanted } from "./languages.js";
import { replaceInFragment, split, splice, stringify, toLowerCase } from "./builtins.js";

/**
 * The first view's box in `host`'s shadow root, if it has one.
 * @param {HTMLElement} host
 * @returns {Element | null}
 */
function firstView(host) {
  return host.shadowRoot ? host.shadowRoot.querySelector(".alp-root[data-first]") : null;
}

/**
 * The element's attributes as the first view names those it was made for
 * (`data-for`): `[name, value]` of each attribute of the table present,
 * by name.
 * @param {HTMLElement} host
 */
export function attributesOf(host) {
  /** @type {[string, string][]} */
  const given = [];
  for (let i = 0; i < ATTRIBUTES.length; i++) {
    const name = ATTRIBUTES[i].name;
    const value = host.getAttribute(name);
    if (value === null) continue;
    let at = given.length;
    while (at > 0 && given[at - 1][0] > name) at--;
    splice(given, at, 0, [name, value]);
  }
  return given;
}

/**
 * Drop the first view unless it was made for the element as it is now:
 * the same attributes, in the language the element speaks.
 * @param {HTMLElement} host
 */
export function keepFirstView(host) {
  const box = firstView(host);
  if (!box || !host.shadowRoot) return;
  const code = (/** @type {string} */ tag) => split(toLowerCase(tag), "-")[0];
  const fits =
    box.getAttribute("data-for") === stringify(attributesOf(host)) &&
    code(box.getAttribute("lang") || "") === code(langWanted(host, null));
  if (fits) return;
  // (emptied, with the element's stylesheet: as the root it makes itself)
  host.shadowRoot.adoptedStyleSheets = [elementSheet()];
  replaceInFragment(host.shadowRoot);
}

/**
 * The playground is about to draw into `host`'s container (or say there
 * why it could not start): a first view there becomes that container, in
 * this task. Its own stylesheet gives way to the element's, and it is no
 * longer marked as one (answering clicks, shown at any width); what it
 * shows is replaced by the first draw.
 * @param {HTMLElement} host
 */
export function takeOver(host) {
  const box = firstView(host);
  const shadow = host.shadowRoot;
  if (!box || !shadow) return;
  shadow.adoptedStyleSheets = [elementSheet()];
  const links = shadow.querySelectorAll("link");
  for (let i = 0; i < links.length; i++) links[i].remove();
  box.removeAttribute("data-first");
  box.removeAttribute("data-for");
}
