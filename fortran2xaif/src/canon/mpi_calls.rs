//! Calls of MPI routines that pass real data (`mpi.rs`): checked against
//! the built-in table of signatures and kept as one opaque statement,
//! `OpaqueKind::Mpi`, whose `Marker` carries `;mpi:NAME;args:ROLES`. The
//! back end turns it into calls of the runtime module `OAD_mpi`.
//!
//! Buffers must be real(8) variables: whole (scalar or array), an array
//! element (the start of `count` contiguous elements, as MPI reads it) or
//! a section. Every other argument is a passive integer expression.

use crate::ast::*;
use crate::mpi::{self, Role};
use crate::sema::{Binding, Cat};
use crate::unparse;

use super::{first_user_call, stmt, Canon};

/// The receive buffers (first arguments) of the `mpi_irecv` calls among
/// `stmts`. For the analyses a nonblocking receive writes its buffer at
/// its wait, after sends that may come later in the text: so every wait
/// of the unit is said to write every one of them (from the message
/// channel), whichever request it completes.
pub(super) fn irecv_buffers(stmts: &[Stmt]) -> Vec<Expr> {
    let mut found = Vec::new();
    collect_irecv_buffers(stmts, &mut found);
    found
}

fn collect_irecv_buffers(stmts: &[Stmt], found: &mut Vec<Expr>) {
    for s in stmts {
        match &s.kind {
            StmtKind::Call { name, args } if name == "mpi_irecv" => {
                if let Some(a) = args.first() {
                    found.push(a.value.clone());
                }
            }
            StmtKind::If { arms, otherwise } => {
                for (_, b) in arms {
                    collect_irecv_buffers(b, found);
                }
                if let Some(b) = otherwise {
                    collect_irecv_buffers(b, found);
                }
            }
            StmtKind::Do { body, .. }
            | StmtKind::DoWhile { body, .. }
            | StmtKind::Forall { body, .. } => collect_irecv_buffers(body, found),
            StmtKind::Select { cases, .. } => {
                for c in cases {
                    collect_irecv_buffers(&c.body, found);
                }
            }
            StmtKind::Where { arms } => {
                for (_, b) in arms {
                    collect_irecv_buffers(b, found);
                }
            }
            _ => {}
        }
    }
}

impl Canon<'_> {
    pub(super) fn mpi_call(
        &mut self,
        callee: String,
        args: Vec<Arg>,
        span: Span,
        out: &mut Vec<Stmt>,
    ) -> FrontResult<()> {
        if mpi::is_other_completion(&callee) {
            return self.err(
                span,
                format!("MPI routine '{callee}' is not supported (complete nonblocking calls with mpi_wait, mpi_test or their kin: the derivative code finishes a receive of real data there)"),
            );
        }
        // `mpi_in_place` as the send buffer of a reduction: the receive
        // buffer is read and written, a variant of its own in the runtime.
        let in_place = args.first().is_some_and(|a| {
            a.keyword.is_none() && matches!(&a.value, Expr::Name(n, _) if n == "mpi_in_place")
        });
        let in_place_roles = if in_place {
            mpi::in_place_signature(&callee)
        } else {
            None
        };
        let Some(roles) = in_place_roles.or_else(|| mpi::signature(&callee)) else {
            return self.err(
                span,
                format!("MPI routine '{callee}' on real data is not supported (supported: mpi_send, mpi_recv, mpi_sendrecv, mpi_allreduce, mpi_reduce, mpi_bcast, mpi_gather, mpi_scatter, mpi_allgather, mpi_isend, mpi_irecv and their completions mpi_wait, mpi_test and kin)"),
            );
        };
        if let Some(a) = args.iter().find(|a| a.keyword.is_some()) {
            return self.err_unsupported(
                a.value.span(),
                format!("unsupported construct: keyword argument in a call of MPI routine '{callee}' (pass the arguments by position)"),
            );
        }
        if args.len() != roles.len() {
            return self.err(
                span,
                format!(
                    "call of MPI routine '{callee}' passes {} argument(s); its Fortran binding has {} (the error code last)",
                    args.len(),
                    roles.len()
                ),
            );
        }
        let mut reads = Vec::new();
        let mut writes = Vec::new();
        for (a, role) in args.iter().zip(roles) {
            let at = a.value.span();
            if let Some((f, sp)) = first_user_call(self.prog, self.unit, &a.value) {
                return self.err_unsupported(sp, format!("unsupported construct: user function '{f}' in a call of MPI routine '{callee}' (assign it to a variable first)"));
            }
            let t = self.ty(&a.value);
            let variable = match &a.value {
                Expr::Name(n, _) | Expr::Apply { name: n, .. } => matches!(
                    self.prog.resolve(self.unit, n),
                    Some(Binding::Var { owner, sym }) if !self.prog.symbol(owner, sym).parameter
                ),
                _ => false,
            };
            if role.is_buffer() {
                if let Expr::Name(n, _) = &a.value {
                    if n == "mpi_in_place" {
                        return self.err_unsupported(
                            at,
                            format!("unsupported construct: mpi_in_place in a call of MPI routine '{callee}' on real data (supported for mpi_allreduce and mpi_reduce only; use separate send and receive buffers)"),
                        );
                    }
                }
                if t.cat != Cat::Real(8) || !variable {
                    return self.err_unsupported(
                        at,
                        format!(
                            "unsupported construct: buffer of MPI routine '{callee}' must be a real(8) variable, element or section (mixed buffer types or expressions are not supported)"
                        ),
                    );
                }
                if let Expr::Apply { args: subs, .. } = &a.value {
                    if subs.iter().any(|s| {
                        matches!(
                            &s.value,
                            Expr::Range {
                                stride: Some(_),
                                ..
                            }
                        )
                    }) {
                        return self.err_unsupported(
                            at,
                            format!("unsupported construct: strided section as buffer of MPI routine '{callee}' (MPI needs contiguous data)"),
                        );
                    }
                }
            } else if matches!(t.cat, Cat::Real(_) | Cat::Complex(_)) {
                return self.err_unsupported(
                    at,
                    format!("unsupported construct: real value as a passive argument of MPI routine '{callee}' (count, datatype, peer, tag, communicator and status are integers)"),
                );
            }
            match role {
                Role::SendBuffer | Role::Input => reads.push(a.value.clone()),
                Role::RecvBuffer => writes.push(a.value.clone()),
                Role::Buffer => {
                    reads.push(a.value.clone());
                    writes.push(a.value.clone());
                }
                Role::Output | Role::Flag => {
                    if variable {
                        writes.push(a.value.clone());
                    }
                }
                Role::Request => {
                    reads.push(a.value.clone());
                    if variable {
                        writes.push(a.value.clone());
                    }
                }
            }
        }
        if mpi::is_completion(&callee) {
            writes.extend(self.irecv_buffers.iter().cloned());
        }
        let runtime_name = if in_place_roles.is_some() {
            format!("{callee}_in_place")
        } else {
            callee.clone()
        };
        self.prog.mpi_calls.insert(
            (span.file, span.line, span.column),
            mpi::annotation(&runtime_name, roles),
        );
        let text = format!("call {callee}({})", unparse::args_text(&args));
        out.push(stmt(
            StmtKind::Opaque {
                kind: OpaqueKind::Mpi,
                text,
                reads,
                writes,
            },
            span,
        ));
        Ok(())
    }
}
