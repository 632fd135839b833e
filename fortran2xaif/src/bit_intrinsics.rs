//! Bit-level intrinsics (`transfer`, `ibits`, `iand`, ...) on active data.
//!
//! They read a value's bit pattern, which has no derivative: the
//! canonicaliser keeps them in passive statements (their results are
//! passive temporaries or integers). That is correct for bit tricks on
//! the side (hashing, random seeds, NaN tests) and wrong if the program
//! really computes with the reinterpreted bits of an active value, so the
//! user hears about every such call: a warning at the call naming the
//! active variable.

use crate::analysis::Results;
use crate::ast::{Expr, Span, Stmt};
use crate::intrinsics::BIT_LEVEL;
use crate::lower::Lowered;
use crate::sema::Program;

/// (span of the call, intrinsic, active variable) for every bit-level
/// intrinsic call whose arguments read active real data.
pub fn calls_on_active_data(
    prog: &Program,
    lowered: &mut Lowered,
    results: &Results,
) -> Vec<(Span, String, String)> {
    let mut found = Vec::new();
    for (u, unit) in prog.units.iter().enumerate() {
        let mut calls = Vec::new();
        collect_calls(prog, u, &unit.ast.body, &mut calls);
        for (span, name, args) in calls {
            let mut active = None;
            for arg in &args {
                arg.walk(&mut |e| {
                    let (Expr::Name(n, _) | Expr::Apply { name: n, .. }) = e else {
                        return;
                    };
                    if active.is_some() {
                        return;
                    }
                    if let Some(l) = lowered.name_loc(prog, u, n) {
                        let location = &lowered.program.locations[l.index()];
                        if location.differentiable_type
                            && (results.activity.conservative
                                || results.activity.declared_active.contains(l.index()))
                        {
                            active = Some(n.clone());
                        }
                    }
                });
            }
            if let Some(variable) = active {
                found.push((span, name, variable));
            }
        }
    }
    found
}

/// Bit-level intrinsic calls (span, name, arguments) in the statements
/// (opaque statements' reads included).
fn collect_calls(
    prog: &Program,
    unit: usize,
    stmts: &[Stmt],
    out: &mut Vec<(Span, String, Vec<Expr>)>,
) {
    crate::sema::for_each_expr_in_stmts(stmts, &mut |top| {
        top.walk(&mut |e| {
            if let Expr::Apply { name, args, span } = e {
                if BIT_LEVEL.contains(&name.as_str()) && prog.intrinsic_ref(unit, e).is_some() {
                    out.push((
                        *span,
                        name.clone(),
                        args.iter().map(|a| a.value.clone()).collect(),
                    ));
                }
            }
        });
    });
}
