//! MPI programs (docs/user-guide.md, "MPI programs"): the routines and
//! named constants of the system MPI, which has no source among the
//! inputs. `use mpi` makes the constants below known by name (integers,
//! passive; the canonical source keeps `use mpi` and declares none of
//! them). A call of an MPI routine that passes real data is checked here
//! against a built-in table of signatures (which argument is a buffer,
//! which the count, datatype, operation, peer, ...) and becomes an opaque
//! statement annotated `;mpi:NAME;args:ROLES` (docs/xaif.md, "MPI
//! calls"); the back end emits the calls of the runtime module `OAD_mpi`.
//! An MPI routine not in the table that passes real data is a named error.

/// Named constants of module `mpi` a program may reference. All are
/// integers (handles, sizes, wildcards) and never carry derivatives.
pub const CONSTANTS: &[&str] = &[
    "mpi_comm_world",
    "mpi_comm_self",
    "mpi_comm_null",
    "mpi_double_precision",
    "mpi_real8",
    "mpi_real",
    "mpi_real4",
    "mpi_integer",
    "mpi_logical",
    "mpi_character",
    "mpi_sum",
    "mpi_max",
    "mpi_min",
    "mpi_prod",
    "mpi_status_size",
    "mpi_status_ignore",
    "mpi_statuses_ignore",
    "mpi_any_source",
    "mpi_any_tag",
    "mpi_proc_null",
    "mpi_success",
    "mpi_request_null",
    "mpi_undefined",
    "mpi_in_place",
    "mpi_max_processor_name",
    "mpi_source",
    "mpi_tag",
    "mpi_error",
];

/// What an argument of an MPI routine is, as far as derivatives care.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Role {
    /// Read only (send buffer).
    SendBuffer,
    /// Written only (receive buffer).
    RecvBuffer,
    /// Read on the root, written elsewhere (`mpi_bcast`).
    Buffer,
    /// Any passive integer input (count, datatype, op, peer, tag, comm, root).
    Input,
    /// A passive integer output (status, index, count, error code).
    Output,
    /// The logical output of a test (`mpi_test` and its kin): whether
    /// the request completed.
    Flag,
    /// A request handle (or an array of them) of a nonblocking call:
    /// written by `mpi_isend`/`mpi_irecv`, read and reset by
    /// `mpi_wait`/`mpi_waitall`. The runtime pairs requests across the
    /// sweeps itself, so the reverse sweep never needs its value.
    Request,
}

impl Role {
    pub fn is_buffer(self) -> bool {
        matches!(self, Role::SendBuffer | Role::RecvBuffer | Role::Buffer)
    }

    /// The letter of the role in the `args:` list of the annotation.
    fn letter(self) -> char {
        match self {
            Role::SendBuffer => 's',
            Role::RecvBuffer => 'r',
            Role::Buffer => 'b',
            Role::Input => 'i',
            Role::Output => 'o',
            Role::Flag => 'f',
            Role::Request => 'q',
        }
    }
}

use Role::{
    Buffer as B, Flag as F, Input as I, Output as O, RecvBuffer as R, Request as Q, SendBuffer as S,
};

/// The MPI routines the tool differentiates on real(8) data, with the
/// role of each argument (Fortran binding of MPI-3, `ierror` last).
const SUPPORTED: &[(&str, &[Role])] = &[
    // buf, count, datatype, dest, tag, comm, ierror
    ("mpi_send", &[S, I, I, I, I, I, O]),
    // buf, count, datatype, source, tag, comm, status, ierror
    ("mpi_recv", &[R, I, I, I, I, I, O, O]),
    // sendbuf, sendcount, sendtype, dest, sendtag, recvbuf, recvcount,
    // recvtype, source, recvtag, comm, status, ierror
    ("mpi_sendrecv", &[S, I, I, I, I, R, I, I, I, I, I, O, O]),
    // sendbuf, recvbuf, count, datatype, op, comm, ierror
    ("mpi_allreduce", &[S, R, I, I, I, I, O]),
    // sendbuf, recvbuf, count, datatype, op, root, comm, ierror
    ("mpi_reduce", &[S, R, I, I, I, I, I, O]),
    // buffer, count, datatype, root, comm, ierror
    ("mpi_bcast", &[B, I, I, I, I, O]),
    // sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm, ierror
    ("mpi_gather", &[S, I, I, R, I, I, I, I, O]),
    ("mpi_scatter", &[S, I, I, R, I, I, I, I, O]),
    // sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, ierror
    ("mpi_allgather", &[S, I, I, R, I, I, I, O]),
    // buf, count, datatype, dest, tag, comm, request, ierror
    ("mpi_isend", &[S, I, I, I, I, I, Q, O]),
    // buf, count, datatype, source, tag, comm, request, ierror
    ("mpi_irecv", &[R, I, I, I, I, I, Q, O]),
    // request, status, ierror
    ("mpi_wait", &[Q, O, O]),
    // count, requests, statuses, ierror
    ("mpi_waitall", &[I, Q, O, O]),
    // count, requests, index, status, ierror
    ("mpi_waitany", &[I, Q, O, O, O]),
    // incount, requests, outcount, indices, statuses, ierror
    ("mpi_waitsome", &[I, Q, O, O, O, O]),
    ("mpi_testsome", &[I, Q, O, O, O, O]),
    // request, flag, status, ierror
    ("mpi_test", &[Q, F, O, O]),
    // count, requests, flag, statuses, ierror
    ("mpi_testall", &[I, Q, F, O, O]),
    // count, requests, index, flag, status, ierror
    ("mpi_testany", &[I, Q, O, F, O, O]),
];

/// The argument roles of a reduction whose send buffer is
/// `mpi_in_place`: the receive buffer is both the contribution and the
/// result (on the root of `mpi_reduce`, on every rank of
/// `mpi_allreduce`). The runtime routine is `oad_NAME_in_place`.
pub fn in_place_signature(name: &str) -> Option<&'static [Role]> {
    match name {
        // MPI_IN_PLACE, buffer, count, datatype, op, comm, ierror
        "mpi_allreduce" => Some(&[I, B, I, I, I, I, O]),
        // MPI_IN_PLACE, buffer, count, datatype, op, root, comm, ierror
        "mpi_reduce" => Some(&[I, B, I, I, I, I, I, O]),
        _ => None,
    }
}

/// The completions of nonblocking calls (waits and tests): kept as MPI
/// statements even though they pass no real data (the runtime finishes
/// an `mpi_irecv` of active data there, and the reverse sweep posts the
/// reversed message there).
pub fn is_completion(name: &str) -> bool {
    matches!(
        name,
        "mpi_wait"
            | "mpi_waitall"
            | "mpi_waitany"
            | "mpi_waitsome"
            | "mpi_test"
            | "mpi_testall"
            | "mpi_testany"
            | "mpi_testsome"
    )
}

/// The ways to drop a request: refused whatever they pass, since a
/// request of active data dropped behind the runtime's back would leave
/// a receive buffer without its values and derivatives, and nothing for
/// the reverse sweep to pair.
pub fn is_other_completion(name: &str) -> bool {
    matches!(
        name,
        "mpi_request_free" | "mpi_cancel" | "mpi_request_get_status"
    )
}

/// The argument roles of a supported MPI routine (lower-case name).
pub fn signature(name: &str) -> Option<&'static [Role]> {
    SUPPORTED
        .iter()
        .find(|(n, _)| *n == name)
        .map(|(_, roles)| *roles)
}

/// Whether `name` is an MPI routine (the `mpi_` prefix is reserved by
/// the standard for its own names).
pub fn is_mpi_routine(name: &str) -> bool {
    name.starts_with("mpi_")
}

/// Whether `name` is a named constant of module `mpi`.
pub fn is_constant(name: &str) -> bool {
    CONSTANTS.contains(&name)
}

/// The annotation suffix of a call: `;mpi:NAME;args:ROLES`, one letter
/// per argument in order (`s` send buffer, `r` receive buffer, `b`
/// buffer of a broadcast, `i` passive input, `o` passive output, `q`
/// request, `f` logical flag of a test).
pub fn annotation(name: &str, roles: &[Role]) -> String {
    let letters: String = roles.iter().map(|r| r.letter()).collect();
    format!(";mpi:{name};args:{letters}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn completions_and_in_place_reductions_have_their_roles() {
        for name in [
            "mpi_wait",
            "mpi_waitall",
            "mpi_waitany",
            "mpi_waitsome",
            "mpi_test",
            "mpi_testall",
            "mpi_testany",
            "mpi_testsome",
        ] {
            assert!(is_completion(name), "{name}");
            assert!(!is_other_completion(name), "{name}");
            let roles = signature(name).expect(name);
            assert!(roles.contains(&Role::Request), "{name}");
            assert_eq!(roles.last(), Some(&Role::Output), "{name}: error code last");
        }
        assert_eq!(
            annotation("mpi_test", signature("mpi_test").unwrap()),
            ";mpi:mpi_test;args:qfoo"
        );
        assert_eq!(
            annotation("mpi_testany", signature("mpi_testany").unwrap()),
            ";mpi:mpi_testany;args:iqofoo"
        );
        assert!(is_other_completion("mpi_request_free"));
        assert!(signature("mpi_request_free").is_none());
        // In place: the receive buffer is read and written.
        assert_eq!(
            annotation(
                "mpi_allreduce_in_place",
                in_place_signature("mpi_allreduce").unwrap()
            ),
            ";mpi:mpi_allreduce_in_place;args:ibiiiio"
        );
        assert_eq!(
            in_place_signature("mpi_reduce").map(|r| r.len()),
            signature("mpi_reduce").map(|r| r.len())
        );
        assert!(in_place_signature("mpi_gather").is_none());
    }
}
