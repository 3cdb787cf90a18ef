// element-style.js, which the build writes beside element.js from
// www/element.css (scripts/element-style): the stylesheet as text. For the
// type check of www/ only (tsconfig.json), never shipped.
declare const css: string;
export default css;
