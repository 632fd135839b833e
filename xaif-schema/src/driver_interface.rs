//! The interface a driver program calls: the side file `P.iface` the front
//! end writes (`fortran2xaif --interface`) and `openad check` reads to
//! write its own drivers. It says which routine holds the
//! INDEPENDENT/DEPENDENT pragmas (the top-level routine), its dummy
//! arguments in order, and the module variables among the seeds, with
//! their types and extents, so that no later tool has to read Fortran.
//!
//! The format is text, one record a line, fields separated by spaces:
//!
//! ```text
//! # openad driver interface 1
//! routine head
//! module model                          (only for a module procedure)
//! argument x real(8) independent 1:3
//! argument y real(8) dependent 1:2 0:4
//! argument n integer passive
//! global model g real(8) independent 1:3
//! ```
//!
//! The role is `independent`, `dependent`, `both` or `passive`; then one
//! `LO:HI` per dimension (none for a scalar), `?` for a bound that is not
//! a constant (assumed shape, allocatable, a dummy's value). The type is
//! the category and kind as Fortran writes it (`real(8)`, `real(4)`,
//! `integer`, `logical`, `character`, `complex(8)`, `type(NAME)`).

use std::fmt::{self, Write as _};

use crate::error::XaifError;

const HEADER: &str = "# openad driver interface 1";

/// How a variable takes part in the differentiation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Role {
    Independent,
    Dependent,
    /// Both an independent and a dependent (updated in place).
    Both,
    Passive,
}

impl Role {
    pub fn from_flags(independent: bool, dependent: bool) -> Role {
        match (independent, dependent) {
            (true, true) => Role::Both,
            (true, false) => Role::Independent,
            (false, true) => Role::Dependent,
            (false, false) => Role::Passive,
        }
    }
    pub fn is_independent(self) -> bool {
        matches!(self, Role::Independent | Role::Both)
    }
    pub fn is_dependent(self) -> bool {
        matches!(self, Role::Dependent | Role::Both)
    }
    fn word(self) -> &'static str {
        match self {
            Role::Independent => "independent",
            Role::Dependent => "dependent",
            Role::Both => "both",
            Role::Passive => "passive",
        }
    }
}

/// The bounds of one dimension; `None` where they are not constants.
pub type Bounds = Option<(i64, i64)>;

/// A dummy argument of the top-level routine, or a module variable.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InterfaceVariable {
    pub name: String,
    /// The module holding it (module variables only).
    pub module: Option<String>,
    /// As Fortran writes it: `real(8)`, `integer`, `type(state)`, ...
    pub type_name: String,
    pub role: Role,
    /// One entry per dimension; empty for a scalar.
    pub dims: Vec<Bounds>,
}

impl InterfaceVariable {
    /// The number of elements, when every bound is a constant.
    pub fn size(&self) -> Option<usize> {
        self.dims.iter().try_fold(1usize, |n, d| {
            let (lo, hi) = (*d)?;
            Some(n * usize::try_from(hi - lo + 1).unwrap_or(0))
        })
    }
}

/// The top-level routine as a driver sees it.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct DriverInterface {
    pub routine: String,
    /// The module whose procedure it is (the driver `use`s it).
    pub module: Option<String>,
    pub arguments: Vec<InterfaceVariable>,
    /// Module variables that are independents or dependents.
    pub globals: Vec<InterfaceVariable>,
}

impl fmt::Display for DriverInterface {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "{HEADER}")?;
        writeln!(f, "routine {}", self.routine)?;
        if let Some(m) = &self.module {
            writeln!(f, "module {m}")?;
        }
        let line = |v: &InterfaceVariable| {
            let mut s = String::new();
            if let Some(m) = &v.module {
                let _ = write!(s, "global {m} ");
            } else {
                s.push_str("argument ");
            }
            let _ = write!(s, "{} {} {}", v.name, v.type_name, v.role.word());
            for d in &v.dims {
                match d {
                    Some((lo, hi)) => {
                        let _ = write!(s, " {lo}:{hi}");
                    }
                    None => s.push_str(" ?"),
                }
            }
            s
        };
        for v in self.arguments.iter().chain(&self.globals) {
            writeln!(f, "{}", line(v))?;
        }
        Ok(())
    }
}

impl DriverInterface {
    /// Reads the text of a `P.iface` file (`file` names it in errors).
    pub fn parse(file: &str, text: &str) -> Result<DriverInterface, XaifError> {
        let mut lines = text.lines().enumerate();
        let err = |line: usize, message: String| XaifError {
            file: file.to_string(),
            line: line + 1,
            column: 1,
            message,
        };
        match lines.next() {
            Some((_, h)) if h.trim() == HEADER => {}
            _ => {
                return Err(err(
                    0,
                    format!("not a driver interface file (first line must be `{HEADER}`)"),
                ))
            }
        }
        let mut out = DriverInterface::default();
        for (n, line) in lines {
            let words: Vec<&str> = line.split_whitespace().collect();
            match words.as_slice() {
                [] => {}
                ["routine", name] => out.routine = name.to_string(),
                ["module", name] => out.module = Some(name.to_string()),
                ["argument", name, ty, role, dims @ ..] => out
                    .arguments
                    .push(variable(name, None, ty, role, dims).map_err(|m| err(n, m.to_string()))?),
                ["global", module, name, ty, role, dims @ ..] => out.globals.push(
                    variable(name, Some(module), ty, role, dims)
                        .map_err(|m| err(n, m.to_string()))?,
                ),
                _ => return Err(err(n, format!("unknown record `{line}`"))),
            }
        }
        if out.routine.is_empty() {
            return Err(err(0, "no `routine` record".to_string()));
        }
        Ok(out)
    }
}

/// What is wrong with one variable record; placed at its line by the caller.
#[derive(Debug, thiserror::Error)]
enum RecordError {
    #[error("unknown role `{0}`")]
    Role(String),
    #[error("bad bounds `{0}`")]
    Bounds(String),
}

fn variable(
    name: &str,
    module: Option<&str>,
    ty: &str,
    role: &str,
    dims: &[&str],
) -> Result<InterfaceVariable, RecordError> {
    let role = match role {
        "independent" => Role::Independent,
        "dependent" => Role::Dependent,
        "both" => Role::Both,
        "passive" => Role::Passive,
        other => return Err(RecordError::Role(other.to_string())),
    };
    let dims = dims
        .iter()
        .map(|d| {
            if *d == "?" {
                return Ok(None);
            }
            let bad = || RecordError::Bounds(d.to_string());
            let (lo, hi) = d.split_once(':').ok_or_else(bad)?;
            let lo = lo.parse().map_err(|_| bad())?;
            let hi = hi.parse().map_err(|_| bad())?;
            Ok(Some((lo, hi)))
        })
        .collect::<Result<Vec<Bounds>, RecordError>>()?;
    Ok(InterfaceVariable {
        name: name.to_string(),
        module: module.map(str::to_string),
        type_name: ty.to_string(),
        role,
        dims,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn written_text_reads_back_to_the_same_interface() {
        let iface = DriverInterface {
            routine: "head".into(),
            module: Some("model".into()),
            arguments: vec![
                InterfaceVariable {
                    name: "x".into(),
                    module: None,
                    type_name: "real(8)".into(),
                    role: Role::Independent,
                    dims: vec![Some((1, 3)), Some((0, 4))],
                },
                InterfaceVariable {
                    name: "n".into(),
                    module: None,
                    type_name: "integer".into(),
                    role: Role::Passive,
                    dims: vec![],
                },
                InterfaceVariable {
                    name: "u".into(),
                    module: None,
                    type_name: "real(8)".into(),
                    role: Role::Both,
                    dims: vec![None],
                },
            ],
            globals: vec![InterfaceVariable {
                name: "g".into(),
                module: Some("model".into()),
                type_name: "real(8)".into(),
                role: Role::Dependent,
                dims: vec![],
            }],
        };
        let text = iface.to_string();
        assert_eq!(DriverInterface::parse("p.iface", &text).unwrap(), iface);
        assert_eq!(iface.arguments[0].size(), Some(15));
        assert_eq!(iface.arguments[2].size(), None);
    }

    #[test]
    fn bad_records_are_errors_at_their_line() {
        let e = DriverInterface::parse(
            "p.iface",
            "# openad driver interface 1\nroutine h\nargument x real(8) sideways\n",
        )
        .unwrap_err();
        assert_eq!((e.line, e.message.as_str()), (3, "unknown role `sideways`"));
        assert!(DriverInterface::parse("p.iface", "routine h\n").is_err());
    }
}
