// @ts-check
// The first view a page may carry inside the element (agent-loop-cli
// first-view): a declarative shadow root the browser paints with the page,
// before any module has loaded (hidden and inert until its stylesheet shows
// it; no click or key reaches it). It has a box for each range of widths
// it was made for (wide, narrow, …), each shown only at those widths. It stays while the module loads only if
// it was made for the element's attributes and language; otherwise it goes
// as soon as element.js runs (which may be after the page's first paint).
// The playground's first draw replaces it in the same task, so nothing
// blank is painted between the two.
import { ATTRIBUTES } from "./attributes.js";
import { elementSheet } from "./style.js";
import { langWanted } from "./languages.js";
import { replace, replaceInFragment, split, splice, stringify, toLowerCase } from "./builtins.js";

/**
 * The first view's first box in `host`'s shadow root, if it has one.
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
  const code = (/** @type {string} */ tag) => split(replace(toLowerCase(tag), "_", "-"), "-")[0];
  const fits =
    box.getAttribute("data-for") === stringify(attributesOf(host)) &&
    code(box.getAttribute("lang") || "") === code(langWanted(host, null));
  if (fits) return;
  // (emptied, with the element's stylesheet: as the root it makes itself)
  host.shadowRoot.adoptedStyleSheets = [elementSheet()];
  replaceInFragment(host.shadowRoot);
}

/**
 * The playground has drawn into `host`'s container (or says there why it
 * could not start), in this task: a first view's first box was that
 * container, and its other box goes. Its own stylesheet gives way to the
 * element's, and it is no longer marked as one (shown at any width,
 * answering clicks and keys).
 * @param {HTMLElement} host
 */
export function takeOver(host) {
  const box = firstView(host);
  const shadow = host.shadowRoot;
  if (!box || !shadow) return;
  shadow.adoptedStyleSheets = [elementSheet()];
  const gone = shadow.querySelectorAll("link, .alp-root[data-first]");
  for (let i = 0; i < gone.length; i++) if (gone[i] !== box) gone[i].remove();
  box.removeAttribute("data-first");
  box.removeAttribute("data-for");
  box.removeAttribute("hidden");
  box.removeAttribute("inert");
}
