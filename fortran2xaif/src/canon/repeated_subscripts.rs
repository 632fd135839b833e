//! A vector subscript that repeats an element on the left of an
//! assignment (`src(cells) = src(cells) + rate` with `cells = (/2, 5, 2/)`)
//! is not standard Fortran: the scalarised loop assigns the elements in
//! turn, as if the right side saw no earlier assignment, while compilers
//! let one of the repeated assignments win. The result depends on the
//! compiler, so the derivative is of a different program than the one the
//! user runs. The front end says so when the vector is a constant it can
//! read (a constructor of integer constants or a named constant holding
//! one); a vector computed at run time is not checked.

use crate::ast::*;

use super::Canon;

impl Canon<'_> {
    /// A warning for each constant vector subscript of `lhs` (the left
    /// side of an array assignment, as written) that repeats a value.
    pub(super) fn warn_repeated_vector_subscripts(&mut self, lhs: &Expr, span: Span) {
        let Expr::Apply { name, args, .. } = lhs else {
            return;
        };
        for arg in args {
            let Some(values) = self.constant_vector(&arg.value) else {
                continue;
            };
            let Some(repeated) = values
                .iter()
                .enumerate()
                .find_map(|(k, v)| values[..k].contains(v).then_some(*v))
            else {
                continue;
            };
            let listed: Vec<String> = values.iter().map(i64::to_string).collect();
            self.prog.canon_warnings.push((
                span,
                format!(
                    "the vector subscript ({}) of '{name}' repeats {repeated} on the left of an \
                     assignment, which standard Fortran does not allow: the differentiated code \
                     assigns the repeated elements in turn, your compiler may keep only one",
                    listed.join(", "),
                ),
            ));
        }
    }

    /// The values of a vector subscript that is a constructor of integer
    /// constants, or a named constant initialised by one.
    fn constant_vector(&self, vector: &Expr) -> Option<Vec<i64>> {
        let items = match vector {
            Expr::ArrayCtor(items, _) => items.clone(),
            Expr::Name(n, _) => {
                let (o, s) = self.prog.var(self.unit, n)?;
                let sym = self.prog.symbol(o, s);
                if sym.rank() != 1 {
                    return None;
                }
                match (sym.parameter, sym.init.as_ref()) {
                    (true, Some(Expr::ArrayCtor(items, _))) => items.clone(),
                    _ => return None,
                }
            }
            _ => return None,
        };
        items
            .iter()
            .map(|e| self.prog.const_int(self.unit, e))
            .collect()
    }
}
