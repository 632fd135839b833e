//! The attributes of the entities the canonical source declares: the side
//! file `P.decl` the front end writes next to `P.canon.f90`
//! (`fortran2xaif --declarations`) and the back end reads
//! (`xaif2fortran --declarations`), so that it knows whether a variable is
//! a named constant, a pointer, allocatable, optional, `intent(in)`,
//! assumed-size or private to its module without re-reading the Fortran
//! text of the declaration.
//!
//! The format is text, one record a line, fields separated by one space:
//!
//! ```text
//! # openad declarations 1
//! decl m x parameter private      unit tag, entity name, attributes
//! decl m.step a intent(in) optional assumed-size
//! decl m.step b
//! component grid h allocatable     derived type, component name, attributes
//! private m                        module m's default accessibility is private
//! ```
//!
//! A `decl` record stands for each `!$oad decl NAME` tag of the canonical
//! source, under the `!$oad unit TAG` it belongs to (names in lower case),
//! with the attributes the declaration gives, in any order, from
//! [`Attributes::WORDS`]. A `component` record stands for each `!$oad
//! component TYPE%NAME` tag (a real component of a derived type), with the
//! attributes of the component's declaration. `assumed-size` means that the last bound of the
//! entity's shape is `*`. A `private` record names a module whose bare
//! `private` statement makes its entities private unless their declaration
//! says `public`. Records are sorted, so the file is deterministic.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;

use crate::error::XaifError;

const HEADER: &str = "# openad declarations 1";

/// The `intent` of a dummy argument.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DeclaredIntent {
    In,
    Out,
    InOut,
}

/// What one declaration says about its entity.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Attributes {
    pub parameter: bool,
    pub intent: Option<DeclaredIntent>,
    pub optional: bool,
    pub allocatable: bool,
    pub pointer: bool,
    pub target: bool,
    pub save: bool,
    /// `Some(true)`: `public`, `Some(false)`: `private`, `None`: the
    /// module's default.
    pub access: Option<bool>,
    /// The last bound of its shape is `*`.
    pub assumed_size: bool,
}

impl Attributes {
    /// The words of the `decl` record, in the order they are written.
    pub const WORDS: [&'static str; 12] = [
        "parameter",
        "intent(in)",
        "intent(out)",
        "intent(inout)",
        "optional",
        "allocatable",
        "pointer",
        "target",
        "save",
        "public",
        "private",
        "assumed-size",
    ];

    fn words(&self) -> Vec<&'static str> {
        let intent = |i| self.intent == Some(i);
        let flags = [
            self.parameter,
            intent(DeclaredIntent::In),
            intent(DeclaredIntent::Out),
            intent(DeclaredIntent::InOut),
            self.optional,
            self.allocatable,
            self.pointer,
            self.target,
            self.save,
            self.access == Some(true),
            self.access == Some(false),
            self.assumed_size,
        ];
        Self::WORDS
            .iter()
            .zip(flags)
            .filter(|(_, on)| *on)
            .map(|(w, _)| *w)
            .collect()
    }

    /// Sets the attribute `word`; `false` if it is not one of [`Self::WORDS`].
    fn set(&mut self, word: &str) -> bool {
        match word {
            "parameter" => self.parameter = true,
            "intent(in)" => self.intent = Some(DeclaredIntent::In),
            "intent(out)" => self.intent = Some(DeclaredIntent::Out),
            "intent(inout)" => self.intent = Some(DeclaredIntent::InOut),
            "optional" => self.optional = true,
            "allocatable" => self.allocatable = true,
            "pointer" => self.pointer = true,
            "target" => self.target = true,
            "save" => self.save = true,
            "public" => self.access = Some(true),
            "private" => self.access = Some(false),
            "assumed-size" => self.assumed_size = true,
            _ => return false,
        }
        true
    }
}

/// The declarations of a canonical source, by unit tag and entity name.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Declarations {
    entities: BTreeMap<(String, String), Attributes>,
    components: BTreeMap<(String, String), Attributes>,
    private_modules: BTreeSet<String>,
}

impl Declarations {
    pub fn new() -> Self {
        Self::default()
    }

    /// Records the declaration of `name` in unit `unit`; the first
    /// declaration of a name in a unit is kept (as the canonical source's
    /// first `!$oad decl` tag of it is the one copied).
    pub fn add(&mut self, unit: &str, name: &str, attributes: Attributes) {
        self.entities
            .entry((unit.to_ascii_lowercase(), name.to_ascii_lowercase()))
            .or_insert(attributes);
    }

    /// Records the declaration of component `name` of derived type
    /// `type_name` (the first one is kept).
    pub fn add_component(&mut self, type_name: &str, name: &str, attributes: Attributes) {
        self.components
            .entry((type_name.to_ascii_lowercase(), name.to_ascii_lowercase()))
            .or_insert(attributes);
    }

    /// Records that module `unit` makes its entities private by default.
    pub fn add_private_module(&mut self, unit: &str) {
        self.private_modules.insert(unit.to_ascii_lowercase());
    }

    /// The attributes of `name` as unit `unit` declares it (`None`: the
    /// unit declares no such entity).
    pub fn get(&self, unit: &str, name: &str) -> Option<&Attributes> {
        self.entities
            .get(&(unit.to_ascii_lowercase(), name.to_ascii_lowercase()))
    }

    /// The attributes of component `name` of derived type `type_name`.
    pub fn component(&self, type_name: &str, name: &str) -> Option<&Attributes> {
        self.components
            .get(&(type_name.to_ascii_lowercase(), name.to_ascii_lowercase()))
    }

    /// Whether module `unit`'s entities are private unless declared
    /// `public`.
    pub fn is_private_by_default(&self, unit: &str) -> bool {
        self.private_modules.contains(&unit.to_ascii_lowercase())
    }

    /// Whether `name`, an entity of module `unit`, is invisible outside it.
    pub fn is_private(&self, unit: &str, name: &str) -> bool {
        match self.get(unit, name).and_then(|a| a.access) {
            Some(public) => !public,
            None => self.is_private_by_default(unit),
        }
    }

    /// The text of the side file (deterministic: records sorted by key).
    pub fn to_text(&self) -> String {
        let mut out = String::new();
        out.push_str(HEADER);
        out.push('\n');
        let records = [("decl", &self.entities), ("component", &self.components)];
        for (kind, map) in records {
            for ((owner, name), a) in map {
                let _ = write!(out, "{kind} {owner} {name}");
                for w in a.words() {
                    out.push(' ');
                    out.push_str(w);
                }
                out.push('\n');
            }
        }
        for unit in &self.private_modules {
            let _ = writeln!(out, "private {unit}");
        }
        out
    }

    /// Reads the side file `file` whose content is `text`.
    pub fn parse(text: &str, file: &str) -> Result<Declarations, XaifError> {
        let error = |k: usize, message: String| XaifError {
            file: file.to_string(),
            line: k + 1,
            column: 1,
            message,
        };
        let mut lines = text.lines().enumerate();
        match lines.next() {
            Some((_, first)) if first.trim_end() == HEADER => {}
            _ => {
                return Err(error(
                    0,
                    format!("not a declarations file (first line must be `{HEADER}`)"),
                ))
            }
        }
        let mut decls = Declarations::new();
        for (k, line) in lines {
            let line = line.trim_end_matches('\r');
            if line.trim().is_empty() || line.starts_with('#') {
                continue;
            }
            let words: Vec<&str> = line.split(' ').collect();
            match words[..] {
                [kind @ ("decl" | "component"), owner, name, ref attributes @ ..] => {
                    let mut a = Attributes::default();
                    if let Some(bad) = attributes.iter().find(|w| !a.set(w)) {
                        return Err(error(
                            k,
                            format!("malformed `{kind}` record: unknown attribute `{bad}`"),
                        ));
                    }
                    if kind == "decl" {
                        decls.add(owner, name, a);
                    } else {
                        decls.add_component(owner, name, a);
                    }
                }
                ["private", unit] => decls.add_private_module(unit),
                ["decl" | "component" | "private", ..] => {
                    return Err(error(
                        k,
                        format!("malformed `{}` record: wrong number of fields", words[0]),
                    ))
                }
                _ => return Err(error(k, format!("unknown record `{}`", words[0]))),
            }
        }
        Ok(decls)
    }

    /// Reads the side file at `path`.
    pub fn read_file(path: &std::path::Path) -> Result<Declarations, XaifError> {
        let name = path.display().to_string();
        let text = std::fs::read_to_string(path).map_err(|e| XaifError {
            file: name.clone(),
            line: 0,
            column: 0,
            message: format!("cannot read the declarations: {e}"),
        })?;
        Declarations::parse(&text, &name)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_round_trip_keeps_every_record() {
        let mut d = Declarations::new();
        let every = Attributes {
            parameter: true,
            intent: Some(DeclaredIntent::InOut),
            optional: true,
            allocatable: true,
            pointer: true,
            target: true,
            save: true,
            access: Some(false),
            assumed_size: true,
        };
        d.add("m.step", "A", every);
        d.add("m", "x", Attributes::default());
        d.add(
            "m",
            "c",
            Attributes {
                access: Some(true),
                ..Attributes::default()
            },
        );
        d.add_private_module("m");
        d.add_component(
            "Grid",
            "h",
            Attributes {
                allocatable: true,
                ..Attributes::default()
            },
        );
        let text = d.to_text();
        assert_eq!(
            text,
            "# openad declarations 1\n\
             decl m c public\n\
             decl m x\n\
             decl m.step a parameter intent(inout) optional allocatable pointer target save private assumed-size\n\
             component grid h allocatable\n\
             private m\n"
        );
        let back = Declarations::parse(&text, "P.decl").unwrap();
        assert_eq!(back, d);
        assert_eq!(back.get("M.STEP", "a"), Some(&every));
        assert_eq!(back.get("m", "y"), None);
        assert!(back.component("grid", "H").unwrap().allocatable);
        assert_eq!(back.component("m", "x"), None);
    }

    #[test]
    fn privacy_is_the_attribute_else_the_module_default() {
        let mut d = Declarations::new();
        let access = |access| Attributes {
            access,
            ..Attributes::default()
        };
        d.add("m", "open", access(Some(true)));
        d.add("m", "plain", access(None));
        d.add("n", "hidden", access(Some(false)));
        d.add("n", "plain", access(None));
        d.add_private_module("m");
        assert!(!d.is_private("m", "open"));
        assert!(d.is_private("m", "plain"));
        assert!(d.is_private("m", "undeclared"));
        assert!(d.is_private("n", "hidden"));
        assert!(!d.is_private("n", "plain"));
    }

    #[test]
    fn the_first_declaration_of_a_name_in_a_unit_is_kept() {
        let mut d = Declarations::new();
        let pointer = Attributes {
            pointer: true,
            ..Attributes::default()
        };
        d.add("u", "p", pointer);
        d.add("u", "p", Attributes::default());
        assert_eq!(d.get("u", "p"), Some(&pointer));
    }

    #[test]
    fn malformed_files_are_rejected_with_their_line() {
        let e = Declarations::parse("hello\n", "P.decl").unwrap_err();
        assert_eq!((e.line, e.file.as_str()), (1, "P.decl"));
        let text = format!("{HEADER}\ndecl m x\ndecl m y sideways\n");
        let e = Declarations::parse(&text, "P.decl").unwrap_err();
        assert_eq!(e.line, 3);
        assert!(e.message.contains("sideways"), "{}", e.message);
        let text = format!("{HEADER}\ndecl m\n");
        assert_eq!(Declarations::parse(&text, "P.decl").unwrap_err().line, 2);
        let text = format!("{HEADER}\nprivate m n\n");
        assert_eq!(Declarations::parse(&text, "P.decl").unwrap_err().line, 2);
        let text = format!("{HEADER}\nsymbol 1\n");
        assert!(Declarations::parse(&text, "P.decl")
            .unwrap_err()
            .message
            .contains("unknown record"));
    }
}
