//! Calls of MPI routines on real data. The front end keeps such a call
//! as an opaque statement whose marker annotation gives the routine and
//! the role of each argument (docs/xaif.md, "MPI calls"):
//! `canon:ID;mpi:NAME;args:ROLES`, one letter per argument (`s` send
//! buffer, `r` receive buffer, `b` broadcast buffer, `i` passive input,
//! `o` passive output, `q` request of a nonblocking call, `f` logical
//! flag of a test). Every buffer is an active variable (the front
//! end declares every real variable an MPI call passes active), and the
//! runtime module `OAD_mpi` (runtime/OAD_mpi.f90) does the communication:
//!
//! | mode, section | code |
//! |---|---|
//! | `f`, `fv` | `call oad_NAME(...)`: the same arguments, values and derivatives travel together |
//! | `rs`/`rj`, plain | `call oad_NAME_fwd(.false., ...)`: values only |
//! | `rs`/`rj`, tape | the passive inputs and the buffers' subscripts pushed on the integer tape, then `call oad_NAME_fwd(.true., ...)` (the runtime keeps its own records: actual source and tag, winners of max/min) |
//! | `rs`/`rj`, mirror | those integers popped, `call oad_NAME_adj(...)` with them (requests left out): the reversed communication of the adjoints |
//!
//! Nonblocking calls (`mpi_isend`/`mpi_irecv` and their completions:
//! `mpi_wait`, `mpi_test` and their `all`/`any`/`some` forms) take the
//! same path; the runtime keeps a record per request and pairs the
//! adjoint of a completion with the adjoint of its isend/irecv through
//! its own stack, so no request value crosses the sweeps.
//!
//! The pushes sit at the statement's position in the tape section and
//! the pops at its mirror, its exact reverse position, so they nest in
//! LIFO order with every other use of the integer tape. The mirror's
//! passive outputs go to back-end locals (`oad_mpi_status`,
//! `oad_mpi_ierr`): the reverse sweep must not change what the user's
//! status and error variables hold.

use xaif_schema::Marker;

use super::black_box::call_actuals;
use super::UnitGen;
use crate::error::Result;
use crate::fortran_text::add_value_suffix;
use crate::markers::{AnnotationError, MPI_KEY};
use crate::template::Section;
use crate::Mode;

/// The integers popped at a mirror (`oad_mpi_int(1..)`).
const POPPED: &str = "oad_mpi_int";
const POPPED_CAPACITY: usize = 64;

/// Reads `mpi:NAME;args:ROLES`.
pub fn parse_mpi(text: &str) -> std::result::Result<(String, Vec<char>), AnnotationError> {
    let mut name = None;
    let mut roles = None;
    for part in text.split(';') {
        if let Some(n) = part.strip_prefix(MPI_KEY) {
            name = Some(n.trim().to_string());
        } else if let Some(a) = part.strip_prefix("args:") {
            let r: Vec<char> = a.trim().chars().collect();
            if let Some(bad) = r.iter().find(|c| !"srbioqf".contains(**c)) {
                return Err(AnnotationError::UnknownRole(*bad));
            }
            roles = Some(r);
        } else {
            return Err(AnnotationError::UnknownPart(part.to_string()));
        }
    }
    match (name, roles) {
        (Some(n), Some(r)) => Ok((n, r)),
        _ => Err(AnnotationError::Missing("needs mpi:NAME and args:ROLES")),
    }
}

/// Splits `text` at top-level occurrences of `sep` (outside parentheses).
fn split_top(text: &str, sep: char) -> Vec<String> {
    let mut parts = vec![String::new()];
    let mut depth = 0i32;
    for c in text.chars() {
        match c {
            '(' => depth += 1,
            ')' => depth -= 1,
            _ if c == sep && depth == 0 => {
                parts.push(String::new());
                continue;
            }
            _ => {}
        }
        parts.last_mut().expect("never empty").push(c);
    }
    parts.into_iter().map(|p| p.trim().to_string()).collect()
}

/// The integer expressions a buffer's reference depends on (its
/// subscripts and section bounds), and the reference rebuilt with each
/// replaced by `replace(k)`, numbering from `first`.
fn buffer_subscripts(
    buffer: &str,
    first: usize,
    replace: &dyn Fn(usize) -> String,
) -> (Vec<String>, String) {
    let Some(open) = buffer.find('(') else {
        return (Vec::new(), buffer.to_string());
    };
    let name = &buffer[..open];
    let inner = &buffer[open + 1..buffer.rfind(')').unwrap_or(buffer.len())];
    let mut found = Vec::new();
    let mut dims = Vec::new();
    for dim in split_top(inner, ',') {
        let bounds: Vec<String> = split_top(&dim, ':')
            .into_iter()
            .map(|b| {
                if b.is_empty() {
                    b
                } else {
                    found.push(b);
                    replace(first + found.len() - 1)
                }
            })
            .collect();
        dims.push(bounds.join(":"));
    }
    (found, format!("{name}({})", dims.join(", ")))
}

fn base_name(actual: &str) -> &str {
    actual.split('(').next().unwrap_or(actual).trim()
}

impl UnitGen<'_, '_> {
    /// The code of an MPI call on real data (`source`: its canonical
    /// statement, label removed) at its position or at its mirror.
    pub(crate) fn mpi_statement(
        &mut self,
        source: &str,
        description: &str,
        mirror: bool,
        m: &Marker,
    ) -> Result<()> {
        let located = |gen: &Self, message: String| {
            gen.env
                .xaif
                .error(&format!("statement_id=\"{}\"", m.statement_id), message)
        };
        let (name, roles) = parse_mpi(description).map_err(|e| {
            located(
                self,
                format!("malformed MPI annotation '{description}': {e}"),
            )
        })?;
        let actuals = call_actuals(source)
            .filter(|a| a.len() == roles.len())
            .ok_or_else(|| {
                located(
                    self,
                    format!(
                        "MPI call '{}' does not match its annotation ({} arguments)",
                        source.trim(),
                        roles.len()
                    ),
                )
            })?;
        let is_buffer = |r: char| matches!(r, 's' | 'r' | 'b');
        for (a, r) in actuals.iter().zip(&roles) {
            if is_buffer(*r) && !self.is_active(base_name(a)) {
                return Err(located(
                    self,
                    format!("MPI call '{name}': buffer '{a}' is not an active variable"),
                ));
            }
        }
        let adjoint_modes = matches!(self.env.mode, Mode::AdjointSplit | Mode::AdjointJoint);
        if !adjoint_modes {
            self.line(format!("call oad_{name}({})", actuals.join(", ")));
            return Ok(());
        }
        // The integers the mirror needs, in argument order.
        let mut integers = Vec::new();
        let mut reversed_args = Vec::new();
        for (k, (a, r)) in actuals.iter().zip(&roles).enumerate() {
            match r {
                'i' => {
                    integers.push(add_value_suffix(a, &|n| self.is_active(n)));
                    reversed_args.push(format!("{POPPED}({})", integers.len()));
                }
                // The error code is last; other outputs are statuses.
                'o' => reversed_args.push(if k + 1 == roles.len() {
                    "oad_mpi_ierr".to_string()
                } else {
                    "oad_mpi_status".to_string()
                }),
                // Requests: the runtime pairs them across the sweeps.
                'q' => {}
                // A test's flag: the forward sweep's value drives the
                // user's control flow; the reverse sweep's is scratch.
                'f' => reversed_args.push("oad_mpi_flag".to_string()),
                _ => {
                    let (subscripts, rebuilt) =
                        buffer_subscripts(a, integers.len() + 1, &|j| format!("{POPPED}({j})"));
                    integers.extend(subscripts);
                    reversed_args.push(rebuilt);
                }
            }
        }
        if integers.len() > POPPED_CAPACITY {
            return Err(located(
                self,
                format!("unsupported construct: MPI call '{name}' needs more than {POPPED_CAPACITY} integers in the reverse sweep"),
            ));
        }
        if !mirror {
            let taping = self.section == Section::Tape;
            if taping {
                for value in &integers {
                    self.tape_int("push_int", value.clone())?;
                }
            }
            self.line(format!(
                "call oad_{name}_fwd({}, {})",
                if taping { ".true." } else { ".false." },
                actuals.join(", ")
            ));
            return Ok(());
        }
        for decl in [
            format!("integer :: {POPPED}({POPPED_CAPACITY})"),
            "integer :: oad_mpi_status(32)".to_string(),
            "integer :: oad_mpi_ierr".to_string(),
            "logical :: oad_mpi_flag".to_string(),
        ] {
            if !self.extra_decls.contains(&decl) {
                self.extra_decls.push(decl);
            }
        }
        for k in (1..=integers.len()).rev() {
            self.tape_int("pop_int", format!("{POPPED}({k})"))?;
        }
        self.line(format!("call oad_{name}_adj({})", reversed_args.join(", ")));
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_annotations_and_subscripts() {
        let (name, roles) = parse_mpi("mpi:mpi_test;args:qfoo").unwrap();
        assert_eq!(name, "mpi_test");
        assert_eq!(roles, vec!['q', 'f', 'o', 'o']);
        let (name, roles) = parse_mpi("mpi:mpi_send;args:siiiiio").unwrap();
        assert_eq!(name, "mpi_send");
        assert_eq!(roles, vec!['s', 'i', 'i', 'i', 'i', 'i', 'o']);
        assert_eq!(
            parse_mpi("mpi:mpi_send;args:x"),
            Err(AnnotationError::UnknownRole('x'))
        );
        assert!(matches!(
            parse_mpi("mpi:mpi_send"),
            Err(AnnotationError::Missing(_))
        ));
        let (found, rebuilt) = buffer_subscripts("u(i + 1, 2:n)", 3, &|k| format!("p({k})"));
        assert_eq!(found, ["i + 1", "2", "n"]);
        assert_eq!(rebuilt, "u(p(3), p(4):p(5))");
        let (found, rebuilt) = buffer_subscripts("u(:, f(j))", 1, &|k| format!("p({k})"));
        assert_eq!(found, ["f(j)"]);
        assert_eq!(rebuilt, "u(:, p(1))");
        let (found, rebuilt) = buffer_subscripts("s", 1, &|k| format!("p({k})"));
        assert!(found.is_empty());
        assert_eq!(rebuilt, "s");
    }
}
