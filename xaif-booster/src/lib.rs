//! xaif-booster library.
