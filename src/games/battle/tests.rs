//! Battle rule tests.
