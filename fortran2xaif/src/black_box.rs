//! Black-box routines: subroutines whose source is not among the inputs
//! (LAPACK, C code, a library without source) declared by the user in a
//! file given with `--black-box FILE` (docs/user-guide.md, "Routines
//! without source"). Each declaration says, for every argument, its type,
//! rank, intent and whether it is differentiable (`active`), and either
//! that the routine is `passive` (derivatives through it are dropped, with
//! a warning at each call) or the names of the tangent and adjoint
//! routines the user supplies.
//!
//! The format reads like a Fortran interface body:
//!
//! ```text
//! subroutine dgesv(n, nrhs, a, lda, ipiv, b, ldb, info)
//!   tangent dgesv_d
//!   adjoint dgesv_b
//!   integer, intent(in) :: n, nrhs, lda, ldb
//!   real(8), intent(inout), active :: a(lda, *), b(ldb, *)
//!   integer, intent(out) :: ipiv(*), info
//! end subroutine
//! ```
//!
//! Comments start with `!` or `#`; case does not matter. Everything is
//! checked here (every argument declared once, nothing else declared,
//! `active` only on double precision reals, a differentiable routine with
//! an active argument and both derivative routines, a passive one with
//! neither), errors at the file, line and column of the declaration.

use std::collections::BTreeMap;
use std::fmt;
use std::path::{Path, PathBuf};

use crate::diagnostics::{Diagnostic, Location};

/// The type of a black-box argument, as far as the tool cares.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ArgType {
    /// `real(8)`, `real*8`, `double precision`, `real(kind=8)`.
    Double,
    /// Any other real (single precision: never differentiable).
    OtherReal,
    Integer,
    Logical,
    Character,
    Complex,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ArgIntent {
    In,
    Out,
    InOut,
}

impl ArgIntent {
    /// Whether the routine may change the argument.
    pub fn writes(self) -> bool {
        self != ArgIntent::In
    }

    pub fn keyword(self) -> &'static str {
        match self {
            ArgIntent::In => "in",
            ArgIntent::Out => "out",
            ArgIntent::InOut => "inout",
        }
    }
}

/// One dummy argument of a black box.
#[derive(Debug, Clone, PartialEq)]
pub struct BlackBoxArg {
    pub name: String,
    pub ty: ArgType,
    /// 0 for a scalar.
    pub rank: usize,
    pub intent: ArgIntent,
    /// Carries a derivative: passed with its derivative to the tangent and
    /// adjoint routines.
    pub active: bool,
}

/// What the tool does with derivatives through a black box.
#[derive(Debug, Clone, PartialEq)]
pub enum Derivatives {
    /// Dropped, with a warning at each call.
    Passive,
    /// Computed by the user's routines (argument convention in
    /// docs/user-guide.md).
    Routines { tangent: String, adjoint: String },
}

/// One declared routine.
#[derive(Debug, Clone, PartialEq)]
pub struct BlackBox {
    pub name: String,
    pub args: Vec<BlackBoxArg>,
    /// Declared by a pragma (`black_box_pragmas.rs`) with only the
    /// intents: each call gives the types and ranks, nothing is active.
    pub call_intents: Option<Vec<ArgIntent>>,
    pub derivatives: Derivatives,
    /// Where the declaration starts (for "declared here" notes).
    pub declared_at: Location,
}

impl BlackBox {
    /// The XAIF `Marker` annotation suffix describing a call
    /// (docs/xaif.md, "Black-box calls"): `;blackbox:NAME;passive;args:...`
    /// or `;blackbox:NAME;tangent:T;adjoint:A;args:...`, each argument its
    /// intent followed by `*` when active.
    pub fn annotation(&self) -> String {
        let args: Vec<String> = self
            .args
            .iter()
            .map(|a| format!("{}{}", a.intent.keyword(), if a.active { "*" } else { "" }))
            .collect();
        let derivatives = match &self.derivatives {
            Derivatives::Passive => "passive".to_string(),
            Derivatives::Routines { tangent, adjoint } => {
                format!("tangent:{tangent};adjoint:{adjoint}")
            }
        };
        format!(
            ";blackbox:{};{derivatives};args:{}",
            self.name,
            args.join(",")
        )
    }
}

/// The routine called by the canonical text `call NAME(...)` of a
/// black-box call (`canon/black_box_calls.rs` writes it).
pub fn callee_of_call_text(text: &str) -> Option<&str> {
    let rest = text.trim_start().strip_prefix("call ")?.trim_start();
    let end = rest.find(|c: char| !is_name_char(c)).unwrap_or(rest.len());
    Some(&rest[..end])
}

/// All declared black boxes, by lower-case name.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Library {
    pub routines: BTreeMap<String, BlackBox>,
}

impl Library {
    pub fn get(&self, name: &str) -> Option<&BlackBox> {
        self.routines.get(&name.to_ascii_lowercase())
    }

    pub fn is_empty(&self) -> bool {
        self.routines.is_empty()
    }

    /// Reads and checks the declaration files, in order; a routine declared
    /// twice is an error at its second declaration.
    pub fn read(files: &[PathBuf]) -> Result<Library, Diagnostic> {
        let mut library = Library::default();
        for file in files {
            let text = std::fs::read_to_string(file).map_err(|e| {
                Diagnostic::error(
                    Location::start_of(file),
                    format!("cannot read the black-box declarations: {e}"),
                )
            })?;
            library.add_declarations(file, &text)?;
        }
        Ok(library)
    }

    /// Parses the declarations in `text` (from `file`) into the library.
    pub fn add_declarations(&mut self, file: &Path, text: &str) -> Result<(), Diagnostic> {
        let mut current: Option<Draft> = None;
        for (index, raw) in text.lines().enumerate() {
            let line_no = index + 1;
            let code = strip_comment(raw);
            let trimmed = code.trim();
            if trimmed.is_empty() {
                continue;
            }
            let column = code.len() - code.trim_start().len() + 1;
            let at = |offset: usize| Location::new(file, line_no, column + offset);
            let lower = trimmed.to_ascii_lowercase();
            let first = lower.split(|c: char| !is_name_char(c)).next().unwrap_or("");
            match (&mut current, first) {
                (None, "subroutine") => {
                    current = Some(Draft::header(&lower, at(0))?);
                }
                (None, _) => {
                    return Err(Diagnostic::error(
                        at(0),
                        format!("expected `subroutine NAME(ARGUMENTS)` to start a black-box declaration, found `{trimmed}`"),
                    ))
                }
                (Some(_), "end") => {
                    let draft = current.take().expect("matched Some");
                    let routine = draft.finish(at(0))?;
                    if let Some(old) = self.routines.get(&routine.name) {
                        return Err(Diagnostic::error(
                            routine.declared_at.clone(),
                            format!(
                                "black-box routine '{}' is declared twice (first at {})",
                                routine.name, old.declared_at
                            ),
                        ));
                    }
                    self.routines.insert(routine.name.clone(), routine);
                }
                (Some(_), "subroutine") => {
                    return Err(Diagnostic::error(
                        at(0),
                        "a black-box declaration starts before the previous one ended (missing `end subroutine`)",
                    ))
                }
                (Some(draft), "passive") if lower == "passive" => draft.set_passive(at(0))?,
                (Some(draft), "tangent" | "adjoint") => draft.set_routine(&lower, at(0))?,
                (Some(draft), _) if lower.contains("::") => draft.declare(&lower, at(0))?,
                (Some(_), _) => {
                    return Err(Diagnostic::error(
                        at(0),
                        format!("expected `passive`, `tangent NAME`, `adjoint NAME`, a declaration `TYPE, intent(...)[, active] :: NAMES` or `end subroutine`, found `{trimmed}`"),
                    ))
                }
            }
        }
        if let Some(draft) = current {
            return Err(Diagnostic::error(
                draft.declared_at,
                format!(
                    "black-box declaration of '{}' has no `end subroutine`",
                    draft.name
                ),
            ));
        }
        Ok(())
    }
}

/// A declaration being read.
struct Draft {
    name: String,
    arg_names: Vec<String>,
    args: BTreeMap<String, BlackBoxArg>,
    passive: bool,
    tangent: Option<String>,
    adjoint: Option<String>,
    declared_at: Location,
}

impl Draft {
    /// `subroutine name(a, b, c)`.
    fn header(lower: &str, at: Location) -> Result<Draft, Diagnostic> {
        let rest = lower["subroutine".len()..].trim();
        let (name, args) = match rest.split_once('(') {
            Some((name, args)) => {
                let args = args.trim_end().strip_suffix(')').ok_or_else(|| {
                    Diagnostic::error(at.clone(), "missing `)` after the argument list")
                })?;
                (name.trim(), args)
            }
            None => (rest, ""),
        };
        if !is_name(name) {
            return Err(Diagnostic::error(
                at,
                format!("'{name}' is not a routine name"),
            ));
        }
        let mut arg_names: Vec<String> = Vec::new();
        for a in args.split(',').map(str::trim).filter(|a| !a.is_empty()) {
            if !is_name(a) {
                return Err(Diagnostic::error(
                    at,
                    format!("'{a}' is not an argument name (in the header of '{name}')"),
                ));
            }
            if arg_names.iter().any(|n| n == a) {
                return Err(Diagnostic::error(
                    at,
                    format!("argument '{a}' appears twice in the header of '{name}'"),
                ));
            }
            arg_names.push(a.to_string());
        }
        Ok(Draft {
            name: name.to_string(),
            arg_names,
            args: BTreeMap::new(),
            passive: false,
            tangent: None,
            adjoint: None,
            declared_at: at,
        })
    }

    fn set_passive(&mut self, at: Location) -> Result<(), Diagnostic> {
        if self.tangent.is_some() || self.adjoint.is_some() {
            return Err(Diagnostic::error(
                at,
                format!("black box '{}' is `passive` and has derivative routines: give one or the other", self.name),
            ));
        }
        self.passive = true;
        Ok(())
    }

    /// `tangent name_d` / `adjoint name_b`.
    fn set_routine(&mut self, lower: &str, at: Location) -> Result<(), Diagnostic> {
        let mut words = lower.split_whitespace();
        let which = words.next().unwrap_or("");
        let routine = words.next().unwrap_or("");
        if !is_name(routine) || words.next().is_some() {
            return Err(Diagnostic::error(
                at,
                format!("expected `{which} ROUTINE_NAME`"),
            ));
        }
        if self.passive {
            return Err(Diagnostic::error(
                at,
                format!("black box '{}' is `passive` and has derivative routines: give one or the other", self.name),
            ));
        }
        let slot = if which == "tangent" {
            &mut self.tangent
        } else {
            &mut self.adjoint
        };
        if slot.is_some() {
            return Err(Diagnostic::error(
                at,
                format!("black box '{}' names its {which} routine twice", self.name),
            ));
        }
        *slot = Some(routine.to_string());
        Ok(())
    }

    /// `TYPE[, intent(...)][, dimension(...)][, active] :: a, b(n, *)`.
    fn declare(&mut self, lower: &str, at: Location) -> Result<(), Diagnostic> {
        let (spec, names) = lower.split_once("::").expect("caller checked `::`");
        let parts = split_top_level(spec);
        let type_text = parts
            .first()
            .map(|s| s.replace(' ', ""))
            .unwrap_or_default();
        let ty = parse_type(&type_text).ok_or_else(|| {
            Diagnostic::error(
                at.clone(),
                format!("unknown type `{type_text}` (real(8), double precision, integer, logical, character, complex)"),
            )
        })?;
        let mut intent = None;
        let mut active = false;
        let mut dimension_rank = None;
        for attr in &parts[1..] {
            let attr = attr.replace(' ', "");
            if let Some(i) = attr
                .strip_prefix("intent(")
                .and_then(|i| i.strip_suffix(')'))
            {
                intent = Some(match i {
                    "in" => ArgIntent::In,
                    "out" => ArgIntent::Out,
                    "inout" => ArgIntent::InOut,
                    other => {
                        return Err(Diagnostic::error(
                            at,
                            format!("unknown intent `{other}` (in, out, inout)"),
                        ))
                    }
                });
            } else if attr == "active" {
                active = true;
            } else if let Some(d) = attr
                .strip_prefix("dimension(")
                .and_then(|d| d.strip_suffix(')'))
            {
                dimension_rank = Some(split_top_level(d).len());
            } else {
                return Err(Diagnostic::error(
                    at,
                    format!(
                        "unknown attribute `{attr}` (intent(in|out|inout), dimension(...), active)"
                    ),
                ));
            }
        }
        let Some(intent) = intent else {
            return Err(Diagnostic::error(
                at,
                "every black-box argument needs `intent(in)`, `intent(out)` or `intent(inout)`: the tool must know what the routine changes",
            ));
        };
        if active && ty != ArgType::Double {
            return Err(Diagnostic::error(
                at,
                "`active` needs a double precision real (real(8)): only those carry derivatives",
            ));
        }
        for item in split_top_level(names) {
            let item = item.trim();
            let (name, rank) = match item.split_once('(') {
                Some((n, dims)) => {
                    let dims = dims.trim_end().strip_suffix(')').unwrap_or(dims);
                    (n.trim(), split_top_level(dims).len())
                }
                None => (item, dimension_rank.unwrap_or(0)),
            };
            if !self.arg_names.iter().any(|a| a == name) {
                return Err(Diagnostic::error(
                    at,
                    format!(
                        "'{name}' is not an argument of black box '{}' ({})",
                        self.name,
                        self.arg_names.join(", ")
                    ),
                ));
            }
            let arg = BlackBoxArg {
                name: name.to_string(),
                ty,
                rank,
                intent,
                active,
            };
            if self.args.insert(name.to_string(), arg).is_some() {
                return Err(Diagnostic::error(
                    at,
                    format!(
                        "argument '{name}' of black box '{}' is declared twice",
                        self.name
                    ),
                ));
            }
        }
        Ok(())
    }

    fn finish(mut self, end: Location) -> Result<BlackBox, Diagnostic> {
        let mut args = Vec::new();
        for n in &self.arg_names {
            let Some(a) = self.args.remove(n) else {
                return Err(Diagnostic::error(
                    end,
                    format!("argument '{n}' of black box '{}' is not declared (its type, intent and activity are needed)", self.name),
                ));
            };
            args.push(a);
        }
        let derivatives = match (self.passive, self.tangent, self.adjoint) {
            (true, _, _) => Derivatives::Passive,
            (false, Some(tangent), Some(adjoint)) => {
                if !args.iter().any(|a| a.active) {
                    return Err(Diagnostic::error(
                        end,
                        format!(
                            "black box '{}' has derivative routines but no `active` argument",
                            self.name
                        ),
                    ));
                }
                Derivatives::Routines { tangent, adjoint }
            }
            (false, None, None) => {
                return Err(Diagnostic::error(
                    end,
                    format!(
                    "black box '{}' says neither `passive` nor `tangent NAME` and `adjoint NAME`",
                    self.name
                ),
                ))
            }
            (false, t, _) => {
                let missing = if t.is_none() { "tangent" } else { "adjoint" };
                return Err(Diagnostic::error(
                    end,
                    format!("black box '{}' has no {missing} routine (give `{missing} NAME`; every mode needs one of the two)", self.name),
                ));
            }
        };
        Ok(BlackBox {
            name: self.name,
            args,
            call_intents: None,
            derivatives,
            declared_at: self.declared_at,
        })
    }
}

impl fmt::Display for ArgType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            ArgType::Double => "real(8)",
            ArgType::OtherReal => "real",
            ArgType::Integer => "integer",
            ArgType::Logical => "logical",
            ArgType::Character => "character",
            ArgType::Complex => "complex",
        })
    }
}

fn parse_type(t: &str) -> Option<ArgType> {
    Some(match t {
        "real(8)" | "real*8" | "doubleprecision" | "real(kind=8)" => ArgType::Double,
        "real" | "real(4)" | "real*4" | "real(kind=4)" => ArgType::OtherReal,
        _ if t.starts_with("integer") => ArgType::Integer,
        _ if t.starts_with("logical") => ArgType::Logical,
        _ if t.starts_with("character") => ArgType::Character,
        _ if t.starts_with("complex") || t == "doublecomplex" => ArgType::Complex,
        _ => return None,
    })
}

fn strip_comment(line: &str) -> &str {
    match line.find(['!', '#']) {
        Some(p) => &line[..p],
        None => line,
    }
}

fn is_name_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_'
}

fn is_name(s: &str) -> bool {
    s.chars().next().is_some_and(|c| c.is_ascii_alphabetic()) && s.chars().all(is_name_char)
}

/// Splits at commas outside parentheses.
fn split_top_level(s: &str) -> Vec<String> {
    let mut parts = Vec::new();
    let mut depth = 0i32;
    let mut current = String::new();
    for c in s.chars() {
        match c {
            '(' => depth += 1,
            ')' => depth -= 1,
            ',' if depth == 0 => {
                parts.push(std::mem::take(&mut current));
                continue;
            }
            _ => {}
        }
        current.push(c);
    }
    if !current.trim().is_empty() || !parts.is_empty() {
        parts.push(current);
    }
    parts
}

#[cfg(test)]
mod tests {
    use super::*;

    const DGESV: &str = "! LAPACK\nsubroutine dgesv(n, nrhs, a, lda, ipiv, b, ldb, info)\n  tangent dgesv_d\n  adjoint dgesv_b\n  integer, intent(in) :: n, nrhs, lda, ldb\n  real(8), intent(inout), active :: a(lda, *), b(ldb, *)\n  integer, intent(out) :: ipiv(*), info\nend subroutine\n\nSUBROUTINE Energy(n, u, e)  # a C routine\n  passive\n  integer, intent(in) :: n\n  double precision, intent(in), dimension(n) :: u\n  real(8), intent(out) :: e\nEND\n";

    fn parse(text: &str) -> Result<Library, Diagnostic> {
        let mut l = Library::default();
        l.add_declarations(Path::new("lib.bb"), text).map(|_| l)
    }

    #[test]
    fn reads_routines_with_derivatives_and_passive_ones() {
        let l = parse(DGESV).unwrap();
        let d = l.get("DGESV").unwrap();
        assert_eq!(
            d.derivatives,
            Derivatives::Routines {
                tangent: "dgesv_d".into(),
                adjoint: "dgesv_b".into()
            }
        );
        let kinds: Vec<(&str, usize, ArgIntent, bool)> = d
            .args
            .iter()
            .map(|a| (a.name.as_str(), a.rank, a.intent, a.active))
            .collect();
        assert_eq!(kinds[2], ("a", 2, ArgIntent::InOut, true));
        assert_eq!(kinds[4], ("ipiv", 1, ArgIntent::Out, false));
        assert_eq!(kinds[7], ("info", 0, ArgIntent::Out, false));
        assert_eq!(d.declared_at, Location::new("lib.bb", 2, 1));
        assert_eq!(
            d.annotation(),
            ";blackbox:dgesv;tangent:dgesv_d;adjoint:dgesv_b;args:in,in,inout*,in,out,inout*,in,out"
        );
        let e = l.get("energy").unwrap();
        assert_eq!(e.derivatives, Derivatives::Passive);
        assert_eq!(e.args[1].rank, 1);
        assert_eq!(e.args[1].ty, ArgType::Double);
    }

    fn error_of(text: &str) -> (usize, String) {
        let d = parse(text).unwrap_err();
        (d.location.line, d.message)
    }

    #[test]
    fn refuses_bad_declarations_at_their_line() {
        let cases = [
            ("subroutine f(x)\n  tangent f_d\n  adjoint f_b\nend\n", 4, "'x' of black box 'f' is not declared"),
            ("subroutine f(x)\n  passive\n  real(8), intent(in) :: x, y\nend\n", 3, "'y' is not an argument"),
            ("subroutine f(x)\n  passive\n  integer, intent(in), active :: x\nend\n", 3, "`active` needs a double precision"),
            ("subroutine f(x)\n  passive\n  real(8) :: x\nend\n", 3, "needs `intent(in)`"),
            ("subroutine f(x)\n  tangent f_d\n  real(8), intent(in), active :: x\nend\n", 4, "no adjoint routine"),
            ("subroutine f(x)\n  passive\n  tangent f_d\n", 3, "one or the other"),
            ("subroutine f(x)\n  real(8), intent(in) :: x\nend\n", 3, "neither `passive`"),
            ("subroutine f(x)\n  passive\n  real(8), intent(in) :: x\n", 1, "no `end subroutine`"),
            ("real(8) :: x\n", 1, "expected `subroutine NAME(ARGUMENTS)`"),
            ("subroutine f(x)\n  passive\n  real(8), intent(in) :: x\nend\nsubroutine F(y)\n  passive\n  real(8), intent(in) :: y\nend\n", 5, "declared twice"),
            ("subroutine f(x)\n  tangent f_d\n  adjoint f_b\n  real(8), intent(in) :: x\nend\n", 5, "no `active` argument"),
        ];
        for (text, line, message) in cases {
            let (l, m) = error_of(text);
            assert!(m.contains(message), "{text}: {m}");
            assert_eq!(l, line, "{text}: {m}");
        }
    }
}
