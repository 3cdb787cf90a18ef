//! DOM view.
