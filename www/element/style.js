// @ts-check
// The element's stylesheet, one for every element, adopted by each shadow
// root: the host page's styles and the playground's never meet. It comes
// as a module (www/element.css, turned into element-style.js beside
// element.js by the build): nothing to fetch, nothing a bundler emits as a
// .css file.
import elementStyle from "./element-style.js";

/** @type {CSSStyleSheet | null} */
let sheet = null;

/** The stylesheet every element's shadow root adopts (made once). */
export function elementSheet() {
  if (!sheet) {
    sheet = new CSSStyleSheet();
    sheet.replaceSync(elementStyle);
  }
  return sheet;
}
