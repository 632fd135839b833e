//! `example.toml`: what an example is and how to drive it.
//!
//! ```toml
//! files = ["model.f90", "head.f90"]   # compile order
//! nx = 3                              # length of x in head(x, y)
//! ny = 2                              # length of y
//! x0 = [1.0, 0.5, -0.3]               # input point (nx numbers) ...
//! x0_formula = "1.0d0 + 0.1d0*i"      # ... or a Fortran expression in i
//! modes = ["f", "fv", "rs", "rj"]     # legs that apply (default: all four)
//! fd_step = 1e-6                      # optional, relative central-difference step
//! tolerance = 1e-5                    # optional, worst relative error allowed
//! data = ["table.dat"]                # optional, files the program reads at run time
//! use_module = "model_mod"            # optional, module the driver must `use` to see head
//! head = "head"                       # optional, name of the top-level routine
//! openad_options = ["-DPHYS_B", "--default-real-8"]  # optional, passed to every openad run
//! fflags = ["-DPHYS_B", "-fdefault-real-8", "-fdefault-double-8"]
//!                                     # optional, gfortran flags for the original sources
//! black_box = ["lapack.bb"]           # optional, black-box declarations (`openad --black-box`)
//! link_sources = ["derivs.f90", "c.c"] # optional, compiled and linked in every leg, never differentiated
//! libraries = ["lapack"]              # optional, linked in every leg (`-llapack`)
//! mpi_procs = [1, 2, 4]               # optional: an MPI program, built with mpif90 and run
//!                                     # with mpirun at each process count (`mpi.rs`)
//! ```
//!
//! `fflags` is used only where the harness compiles the user's original
//! sources (the finite-difference reference, the canonical-source check):
//! the differentiated code must build without flags (CONTRACT.md), so it
//! is compiled as always.
//!
//! Only this subset of TOML is read: one `key = value` per line, values are
//! strings, numbers or one-line arrays of those; `#` starts a comment.

use std::collections::BTreeMap;
use std::path::Path;

/// One value on the right of `key = ...`.
#[derive(Debug, Clone, PartialEq)]
pub enum Value {
    Text(String),
    Number(f64),
    List(Vec<Value>),
}

/// The derivative modes of the tool, as in `openad -m`.
pub const MODES: [&str; 4] = ["f", "fv", "rs", "rj"];

#[derive(Debug, Clone)]
pub struct Manifest {
    pub files: Vec<String>,
    pub nx: usize,
    pub ny: usize,
    pub x0: InputPoint,
    pub modes: Vec<String>,
    pub fd_step: f64,
    pub tolerance: f64,
    pub data: Vec<String>,
    pub use_module: Option<String>,
    pub head: String,
    /// Extra `openad` options (preprocessor, `--default-real-8`).
    pub openad_options: Vec<String>,
    /// gfortran flags for compiling the original sources.
    pub fflags: Vec<String>,
    /// Black-box declaration files passed to `openad --black-box`.
    pub black_box: Vec<String>,
    /// Sources compiled and linked with every leg but not given to
    /// `openad` (routines without source, hand-written derivatives).
    pub link_sources: Vec<String>,
    /// Libraries linked with every leg (`-lNAME`), after everything else.
    pub libraries: Vec<String>,
    /// Benchmarks only: the line of the sources tagged `! bench-size` gets this parameter.
    pub size_small: Option<u64>,
    pub size_large: Option<u64>,
    /// MPI programs: the process counts every leg runs at (empty: not MPI).
    pub mpi_procs: Vec<usize>,
}

#[derive(Debug, Clone)]
pub enum InputPoint {
    Values(Vec<f64>),
    /// A Fortran expression in the integer `i` (1-based).
    Formula(String),
}

pub const DEFAULT_FD_STEP: f64 = 1e-6;
pub const DEFAULT_TOLERANCE: f64 = 1e-5;

impl Manifest {
    pub fn read(path: &Path) -> Result<Manifest, String> {
        let text = std::fs::read_to_string(path)
            .map_err(|e| format!("{}: cannot read: {e}", path.display()))?;
        Manifest::parse(&text).map_err(|e| format!("{}: {e}", path.display()))
    }

    pub fn parse(text: &str) -> Result<Manifest, String> {
        let table = parse_table(text)?;
        let known = [
            "files",
            "nx",
            "ny",
            "x0",
            "x0_formula",
            "modes",
            "fd_step",
            "tolerance",
            "data",
            "use_module",
            "head",
            "openad_options",
            "fflags",
            "black_box",
            "link_sources",
            "libraries",
            "size_small",
            "size_large",
            "mpi_procs",
        ];
        if let Some(key) = table.keys().find(|k| !known.contains(&k.as_str())) {
            return Err(format!("unknown key `{key}`"));
        }
        let files = text_list(&table, "files")?.ok_or("`files` is required")?;
        if files.is_empty() {
            return Err("`files` is empty".into());
        }
        let nx = count(&table, "nx")?;
        let ny = count(&table, "ny")?;
        let x0 = match (table.get("x0"), table.get("x0_formula")) {
            (Some(_), Some(_)) => return Err("give `x0` or `x0_formula`, not both".into()),
            (Some(Value::List(items)), None) => {
                let values = items
                    .iter()
                    .map(|v| match v {
                        Value::Number(n) => Ok(*n),
                        _ => Err("`x0` must hold numbers".to_string()),
                    })
                    .collect::<Result<Vec<_>, _>>()?;
                if values.len() != nx {
                    return Err(format!("`x0` has {} numbers, nx = {nx}", values.len()));
                }
                InputPoint::Values(values)
            }
            (None, Some(Value::Text(formula))) => InputPoint::Formula(formula.clone()),
            _ => return Err("`x0` (list of numbers) or `x0_formula` (string) is required".into()),
        };
        let modes = text_list(&table, "modes")?
            .unwrap_or_else(|| MODES.iter().map(|m| m.to_string()).collect());
        if let Some(bad) = modes.iter().find(|m| !MODES.contains(&m.as_str())) {
            return Err(format!("unknown mode `{bad}` in `modes`"));
        }
        Ok(Manifest {
            files,
            nx,
            ny,
            x0,
            modes,
            fd_step: number(&table, "fd_step")?.unwrap_or(DEFAULT_FD_STEP),
            tolerance: number(&table, "tolerance")?.unwrap_or(DEFAULT_TOLERANCE),
            data: text_list(&table, "data")?.unwrap_or_default(),
            use_module: string(&table, "use_module")?,
            head: string(&table, "head")?.unwrap_or_else(|| "head".into()),
            openad_options: text_list(&table, "openad_options")?.unwrap_or_default(),
            fflags: text_list(&table, "fflags")?.unwrap_or_default(),
            black_box: text_list(&table, "black_box")?.unwrap_or_default(),
            link_sources: text_list(&table, "link_sources")?.unwrap_or_default(),
            libraries: text_list(&table, "libraries")?.unwrap_or_default(),
            size_small: number(&table, "size_small")?.map(|n| n as u64),
            size_large: number(&table, "size_large")?.map(|n| n as u64),
            mpi_procs: match table.get("mpi_procs") {
                None => Vec::new(),
                Some(Value::List(items)) => items
                    .iter()
                    .map(|v| match v {
                        Value::Number(n) if *n >= 1.0 && n.fract() == 0.0 => Ok(*n as usize),
                        _ => Err("`mpi_procs` must hold positive integers".to_string()),
                    })
                    .collect::<Result<Vec<_>, _>>()?,
                Some(_) => return Err("`mpi_procs` must be a list".into()),
            },
        })
    }

    pub fn applies_to(&self, mode: &str) -> bool {
        self.modes.iter().any(|m| m == mode)
    }
}

fn count(table: &BTreeMap<String, Value>, key: &str) -> Result<usize, String> {
    match number(table, key)? {
        Some(n) if n >= 1.0 && n.fract() == 0.0 => Ok(n as usize),
        Some(n) => Err(format!("`{key}` = {n} is not a positive integer")),
        None => Err(format!("`{key}` is required")),
    }
}

fn number(table: &BTreeMap<String, Value>, key: &str) -> Result<Option<f64>, String> {
    match table.get(key) {
        None => Ok(None),
        Some(Value::Number(n)) => Ok(Some(*n)),
        Some(_) => Err(format!("`{key}` must be a number")),
    }
}

fn string(table: &BTreeMap<String, Value>, key: &str) -> Result<Option<String>, String> {
    match table.get(key) {
        None => Ok(None),
        Some(Value::Text(s)) => Ok(Some(s.clone())),
        Some(_) => Err(format!("`{key}` must be a string")),
    }
}

fn text_list(table: &BTreeMap<String, Value>, key: &str) -> Result<Option<Vec<String>>, String> {
    match table.get(key) {
        None => Ok(None),
        Some(Value::List(items)) => items
            .iter()
            .map(|v| match v {
                Value::Text(s) => Ok(s.clone()),
                _ => Err(format!("`{key}` must be a list of strings")),
            })
            .collect::<Result<Vec<_>, _>>()
            .map(Some),
        Some(_) => Err(format!("`{key}` must be a list")),
    }
}

/// Parses the TOML subset described in the module documentation.
pub fn parse_table(text: &str) -> Result<BTreeMap<String, Value>, String> {
    let mut table = BTreeMap::new();
    for (index, raw) in text.lines().enumerate() {
        let line = strip_comment(raw).trim();
        if line.is_empty() {
            continue;
        }
        let (key, value) = line
            .split_once('=')
            .ok_or_else(|| format!("line {}: expected `key = value`", index + 1))?;
        let key = key.trim();
        if key.is_empty() || !key.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
            return Err(format!("line {}: bad key `{key}`", index + 1));
        }
        let value = parse_value(value.trim()).map_err(|e| format!("line {}: {e}", index + 1))?;
        if table.insert(key.to_string(), value).is_some() {
            return Err(format!("line {}: `{key}` given twice", index + 1));
        }
    }
    Ok(table)
}

/// Drops a `#` comment that is not inside a string.
fn strip_comment(line: &str) -> &str {
    let mut in_string = false;
    for (i, c) in line.char_indices() {
        match c {
            '"' => in_string = !in_string,
            '#' if !in_string => return &line[..i],
            _ => {}
        }
    }
    line
}

fn parse_value(text: &str) -> Result<Value, String> {
    if let Some(inner) = text.strip_prefix('[') {
        let inner = inner
            .strip_suffix(']')
            .ok_or_else(|| format!("unterminated list `{text}`"))?;
        let mut items = Vec::new();
        for part in split_list(inner) {
            let part = part.trim();
            if !part.is_empty() {
                items.push(parse_value(part)?);
            }
        }
        return Ok(Value::List(items));
    }
    if let Some(inner) = text.strip_prefix('"') {
        let inner = inner
            .strip_suffix('"')
            .ok_or_else(|| format!("unterminated string `{text}`"))?;
        return Ok(Value::Text(inner.to_string()));
    }
    text.replace('_', "")
        .parse::<f64>()
        .map(Value::Number)
        .map_err(|_| format!("cannot read value `{text}`"))
}

/// Splits a list body at commas outside strings.
fn split_list(inner: &str) -> Vec<&str> {
    let mut parts = Vec::new();
    let mut in_string = false;
    let mut start = 0;
    for (i, c) in inner.char_indices() {
        match c {
            '"' => in_string = !in_string,
            ',' if !in_string => {
                parts.push(&inner[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    parts.push(&inner[start..]);
    parts
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_a_full_manifest() {
        let m = Manifest::parse(
            r#"
            # comment
            files = ["a.f90", "b.f90"]  # trailing
            nx = 2
            ny = 1
            x0 = [1.5, -2e-1]
            modes = ["f", "rs"]
            tolerance = 1e-4
            "#,
        )
        .unwrap();
        assert_eq!(m.files, ["a.f90", "b.f90"]);
        assert_eq!((m.nx, m.ny), (2, 1));
        assert!(matches!(m.x0, InputPoint::Values(ref v) if v == &[1.5, -0.2]));
        assert!(m.applies_to("rs") && !m.applies_to("fv"));
        assert_eq!(m.tolerance, 1e-4);
        assert_eq!(m.fd_step, DEFAULT_FD_STEP);
        assert!(m.black_box.is_empty() && m.link_sources.is_empty() && m.libraries.is_empty());
    }

    #[test]
    fn black_boxes_link_sources_and_libraries() {
        let m = Manifest::parse(
            "files=[\"a.f90\"]\nnx=1\nny=1\nx0=[1.0]\nblack_box=[\"l.bb\"]\nlink_sources=[\"d.f90\", \"c.c\"]\nlibraries=[\"lapack\"]",
        )
        .unwrap();
        assert_eq!(m.black_box, ["l.bb"]);
        assert_eq!(m.link_sources, ["d.f90", "c.c"]);
        assert_eq!(m.libraries, ["lapack"]);
        assert!(
            Manifest::parse("files=[\"a.f90\"]\nnx=1\nny=1\nx0=[1.0]\nlibraries=\"lapack\"")
                .is_err()
        );
    }

    #[test]
    fn rejects_wrong_input_point_length_and_unknown_keys() {
        assert!(Manifest::parse("files=[\"a.f90\"]\nnx=2\nny=1\nx0=[1.0]").is_err());
        assert!(Manifest::parse("files=[\"a.f90\"]\nnx=1\nny=1\nx0=[1.0]\nnxx=3").is_err());
        assert!(Manifest::parse("files=[\"a.f90\"]\nnx=1\nny=1\nx0=[1.0]\nmodes=[\"q\"]").is_err());
    }

    #[test]
    fn formula_input_point() {
        let m = Manifest::parse("files=[\"a.f90\"]\nnx=4\nny=1\nx0_formula=\"0.1d0*i\"").unwrap();
        assert!(matches!(m.x0, InputPoint::Formula(ref f) if f == "0.1d0*i"));
        assert_eq!(m.modes.len(), 4);
        assert!(m.openad_options.is_empty() && m.fflags.is_empty());
    }

    #[test]
    fn tool_and_compiler_options() {
        let m = Manifest::parse(
            "files=[\"a.F90\"]\nnx=1\nny=1\nx0=[1.0]\nopenad_options=[\"-DB\", \"--default-real-8\"]\nfflags=[\"-DB\"]",
        )
        .unwrap();
        assert_eq!(m.openad_options, ["-DB", "--default-real-8"]);
        assert_eq!(m.fflags, ["-DB"]);
        assert!(
            Manifest::parse("files=[\"a.F90\"]\nnx=1\nny=1\nx0=[1.0]\nfflags=\"-DB\"").is_err()
        );
    }
}
