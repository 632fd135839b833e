//! The intrinsic modules `iso_fortran_env` and `iso_c_binding`, as far as
//! their named constants go: kind numbers, units and storage sizes.
//!
//! A `use` of one becomes a declaration of the constants it makes visible
//! (`use, intrinsic :: iso_fortran_env, only: wp => real64` is read as
//! `integer, parameter :: wp = 8`), so the rest of the front end sees
//! ordinary named constants and the canonical source declares them. The
//! values are gfortran's on x86-64, the compiler the generated code is
//! built with (the derivative code's `type(active)` is `real(8)` anyway).
//! Anything else these modules offer (`c_ptr`, `c_loc`, `c_f_pointer`,
//! `compiler_version`, the character constants) and every other intrinsic
//! module (`ieee_arithmetic`, ...) is refused by name.

use crate::ast::*;
use tree_sitter::Node;

use super::FortranParser;

const ISO_FORTRAN_ENV: &[(&str, i64)] = &[
    ("int8", 1),
    ("int16", 2),
    ("int32", 4),
    ("int64", 8),
    ("real32", 4),
    ("real64", 8),
    ("real128", 16),
    ("input_unit", 5),
    ("output_unit", 6),
    ("error_unit", 0),
    ("iostat_end", -1),
    ("iostat_eor", -2),
    ("iostat_inquire_internal_unit", 5018),
    ("character_storage_size", 8),
    ("file_storage_size", 8),
    ("numeric_storage_size", 32),
    ("atomic_int_kind", 4),
    ("atomic_logical_kind", 4),
];

const ISO_C_BINDING: &[(&str, i64)] = &[
    ("c_int", 4),
    ("c_short", 2),
    ("c_long", 8),
    ("c_long_long", 8),
    ("c_signed_char", 1),
    ("c_size_t", 8),
    ("c_int8_t", 1),
    ("c_int16_t", 2),
    ("c_int32_t", 4),
    ("c_int64_t", 8),
    ("c_intptr_t", 8),
    ("c_float", 4),
    ("c_double", 8),
    ("c_long_double", 10),
    ("c_float_complex", 4),
    ("c_double_complex", 8),
    ("c_long_double_complex", 10),
    ("c_bool", 1),
    ("c_char", 1),
];

/// The named constants of intrinsic module `module`, if the front end
/// knows it.
fn constants_of(module: &str) -> Option<&'static [(&'static str, i64)]> {
    match module {
        "iso_fortran_env" => Some(ISO_FORTRAN_ENV),
        "iso_c_binding" => Some(ISO_C_BINDING),
        _ => None,
    }
}

/// Whether a `use` of `module` without the `intrinsic` keyword means the
/// intrinsic module (no user module can be called so).
pub(super) fn is_known_intrinsic_module(module: &str) -> bool {
    constants_of(module).is_some()
}

impl<'a> FortranParser<'a> {
    /// The declaration a `use` of an intrinsic module stands for: its
    /// constants named in the `only` list (under their local names), or
    /// all of them.
    pub(super) fn intrinsic_module_use(
        &self,
        s: Node,
        module: &str,
        only: bool,
        items: &[(String, String)],
        span: Span,
    ) -> FrontResult<SpecStmt> {
        let Some(known) = constants_of(module) else {
            return self.unsupported(s, &format!("intrinsic module {module}"));
        };
        let value = |name: &str| known.iter().find(|(n, _)| *n == name).map(|(_, v)| *v);
        let mut entities = Vec::new();
        let mut entity = |name: &str, v: i64| {
            entities.push(EntityDecl {
                name: name.to_string(),
                dims: None,
                char_len: None,
                init: Some(if v < 0 {
                    Expr::Unary(UnOp::Neg, Box::new(Expr::int(-v, span)), span)
                } else {
                    Expr::int(v, span)
                }),
                span,
            })
        };
        if only {
            for (local, remote) in items {
                match value(remote) {
                    Some(v) => entity(local, v),
                    None => {
                        return self.unsupported(
                            s,
                            &format!(
                                "'{remote}' of intrinsic module {module} (only its kind, unit and storage-size constants are known)"
                            ),
                        )
                    }
                }
            }
        } else {
            for (name, v) in known {
                // `use m, a => b`: `b` is visible as `a` only.
                let local = items
                    .iter()
                    .find(|(_, r)| r == name)
                    .map_or(*name, |(l, _)| l.as_str());
                entity(local, *v);
            }
        }
        Ok(SpecStmt::TypeDecl {
            ty: TypeSpec::new(BaseType::Integer),
            attrs: vec![Attr::Parameter],
            entities,
            span,
        })
    }
}
