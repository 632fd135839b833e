//! fortran2xaif library.
