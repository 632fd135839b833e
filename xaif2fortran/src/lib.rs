//! xaif2fortran library.
