//! SVG figure.
