//! The attributes of the entities the canonical source declares: the side
//! file `P.decl` the front end writes next to `P.canon.f90`
//! (`fortran2xaif --declarations`) and the back end reads
//! (`xaif2fortran --declarations`), so that it knows whether a variable is
//! a named constant, a pointer, allocatable, optional, `intent(in)`,
//! assumed-size or private to its module without re-reading the Fortran
//! text of the declaration.
//!
//! It also says what the back end would otherwise read from the canonical
//! source's statements around the declarations: each unit's header (kind,
//! name, dummies), its `use` statements and its `common` statements.
//!
//! The format is text, one record a line, fields separated by one space:
//!
//! ```text
//! # openad declarations 2
//! unit m module m                  unit tag, header keyword, name, dummies
//! unit m.step subroutine step a b
//! type grid h dx                   derived type, its components in order
//! decl m x parameter private      unit tag, entity name, attributes
//! decl m.step a intent(in) optional assumed-size
//! decl m.step b
//! component grid h allocatable     derived type, component name, attributes
//! use m.step phys only g=>gravity damp    unit tag, module, only|all, items
//! common 12 13 m.step blk a b c    lines in P.canon.f90, unit tag, block, members
//! private m                        module m's default accessibility is private
//! ```
//!
//! A `unit` record stands for each `!$oad unit TAG` tag: the keyword of
//! the header that follows it (`program`, `module`, `subroutine`,
//! `block-data`), the unit's name and its dummy arguments in order.
//! A `decl` record stands for each `!$oad decl NAME` tag of the canonical
//! source, under the `!$oad unit TAG` it belongs to (names in lower case),
//! with the attributes the declaration gives, in any order, from
//! [`Attributes::WORDS`]. A `component` record stands for each `!$oad
//! component TYPE%NAME` tag (a real component of a derived type), with the
//! attributes of the component's declaration. `assumed-size` means that the last bound of the
//! entity's shape is `*`. A `use` record stands for each `use` statement
//! of a unit, in the unit's order: `only` when it has an `only:` list,
//! each item `NAME` or `LOCAL=>REMOTE`. A `common` record stands for each
//! `common` statement, with the first and last line (1-based) it occupies
//! in `P.canon.f90` and its members in storage order. A `type` record
//! lists a derived type's components in the order of its definition. A
//! `save` record names a unit with a bare `save` statement. A `private` record
//! names a module whose bare
//! `private` statement makes its entities private unless their declaration
//! says `public`. Records are sorted (`use` records by unit, then in the
//! unit's order; `common` records by line), so the file is deterministic.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;

use crate::error::XaifError;

/// The first line; the number is the format's version.
const HEADER_PREFIX: &str = "# openad declarations ";
const VERSION: u32 = 2;

/// The `intent` of a dummy argument.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DeclaredIntent {
    In,
    Out,
    InOut,
}

/// What one declaration says about its entity.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
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
    /// It is given an initial value (`= value`, `=> null()`).
    pub initialised: bool,
    /// The rank of its shape (0: a scalar).
    pub rank: usize,
    /// Its type as the declaration writes it, in lower case without
    /// blanks (`integer`, `real(8)`, `type(grid)`); `None`: not recorded.
    pub type_spec: Option<String>,
}

impl Attributes {
    /// The flags of the `decl` record, in the order they are written;
    /// `rank=N` (when not 0) and `type=SPEC` follow them.
    pub const WORDS: [&'static str; 13] = [
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
        "initialised",
    ];

    fn words(&self) -> Vec<String> {
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
            self.initialised,
        ];
        let mut words: Vec<String> = Self::WORDS
            .iter()
            .zip(flags)
            .filter(|(_, on)| *on)
            .map(|(w, _)| w.to_string())
            .collect();
        if self.rank > 0 {
            words.push(format!("rank={}", self.rank));
        }
        if let Some(t) = &self.type_spec {
            words.push(format!("type={t}"));
        }
        words
    }

    /// Records the declaration's type spec (blanks dropped, lower case).
    pub fn with_type(mut self, type_spec: &str) -> Attributes {
        let spec: String = type_spec
            .chars()
            .filter(|c| !c.is_whitespace())
            .collect::<String>()
            .to_ascii_lowercase();
        self.type_spec = Some(spec);
        self
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
            "initialised" => self.initialised = true,
            _ => {
                if let Some(rank) = word.strip_prefix("rank=") {
                    match rank.parse() {
                        Ok(r) if r > 0 => self.rank = r,
                        _ => return false,
                    }
                } else if let Some(spec) = word.strip_prefix("type=").filter(|t| !t.is_empty()) {
                    self.type_spec = Some(spec.to_string());
                } else {
                    return false;
                }
            }
        }
        true
    }
}

/// The keyword of a unit's header in the canonical source (functions are
/// subroutines there).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum UnitKind {
    Program,
    Module,
    Subroutine,
    BlockData,
}

impl UnitKind {
    const WORDS: [(UnitKind, &'static str); 4] = [
        (UnitKind::Program, "program"),
        (UnitKind::Module, "module"),
        (UnitKind::Subroutine, "subroutine"),
        (UnitKind::BlockData, "block-data"),
    ];

    fn word(self) -> &'static str {
        Self::WORDS
            .iter()
            .find(|(k, _)| *k == self)
            .map_or("", |w| w.1)
    }

    fn from_word(word: &str) -> Option<UnitKind> {
        Self::WORDS.iter().find(|(_, w)| *w == word).map(|w| w.0)
    }
}

/// The header of a unit: what it is, its name and its dummy arguments.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnitHeader {
    pub kind: UnitKind,
    pub name: String,
    pub dummies: Vec<String>,
}

/// A `use` statement of a unit.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UseStatement {
    /// The module's name.
    pub module: String,
    /// It has an `only:` list: only the items are visible.
    pub only: bool,
    /// (name in the unit, name in the module), in the statement's order.
    pub items: Vec<(String, String)>,
}

/// A `common` statement of a unit.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CommonStatement {
    /// The lines of `P.canon.f90` it occupies (1-based, inclusive).
    pub first_line: usize,
    pub last_line: usize,
    /// The unit tag.
    pub unit: String,
    pub block: String,
    /// The members in storage order.
    pub members: Vec<String>,
}

/// The declarations of a canonical source, by unit tag and entity name.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Declarations {
    units: BTreeMap<String, UnitHeader>,
    entities: BTreeMap<(String, String), Attributes>,
    components: BTreeMap<(String, String), Attributes>,
    uses: BTreeMap<String, Vec<UseStatement>>,
    /// By first line.
    commons: BTreeMap<usize, CommonStatement>,
    private_modules: BTreeSet<String>,
    /// Units with a bare `save` statement.
    saving_units: BTreeSet<String>,
    /// Derived type → its components in the order of its definition.
    types: BTreeMap<String, Vec<String>>,
}

impl Declarations {
    pub fn new() -> Self {
        Self::default()
    }

    /// Records the header of unit `tag` (the first one is kept).
    pub fn add_unit(&mut self, tag: &str, header: UnitHeader) {
        let header = UnitHeader {
            kind: header.kind,
            name: header.name.to_ascii_lowercase(),
            dummies: header
                .dummies
                .iter()
                .map(|d| d.to_ascii_lowercase())
                .collect(),
        };
        self.units.entry(tag.to_ascii_lowercase()).or_insert(header);
    }

    /// Records the next `use` statement of unit `unit`.
    pub fn add_use(&mut self, unit: &str, statement: UseStatement) {
        let lower = |n: &String| n.to_ascii_lowercase();
        let statement = UseStatement {
            module: lower(&statement.module),
            only: statement.only,
            items: statement
                .items
                .iter()
                .map(|(l, r)| (lower(l), lower(r)))
                .collect(),
        };
        self.uses
            .entry(unit.to_ascii_lowercase())
            .or_default()
            .push(statement);
    }

    /// Records a `common` statement (the first one on a line is kept).
    pub fn add_common(&mut self, statement: CommonStatement) {
        let lower = |n: &String| n.to_ascii_lowercase();
        let statement = CommonStatement {
            unit: lower(&statement.unit),
            block: lower(&statement.block),
            members: statement.members.iter().map(lower).collect(),
            ..statement
        };
        self.commons
            .entry(statement.first_line)
            .or_insert(statement);
    }

    /// The header of unit `tag`.
    pub fn unit(&self, tag: &str) -> Option<&UnitHeader> {
        self.units.get(&tag.to_ascii_lowercase())
    }

    /// Every unit's tag and header, by tag.
    pub fn units(&self) -> impl Iterator<Item = (&str, &UnitHeader)> {
        self.units.iter().map(|(t, h)| (t.as_str(), h))
    }

    /// The `use` statements of unit `unit`, in its order.
    pub fn uses(&self, unit: &str) -> &[UseStatement] {
        self.uses
            .get(&unit.to_ascii_lowercase())
            .map_or(&[], Vec::as_slice)
    }

    /// Whether some unit uses module `module`.
    pub fn is_used(&self, module: &str) -> bool {
        let module = module.to_ascii_lowercase();
        self.uses.values().flatten().any(|u| u.module == module)
    }

    /// Every `common` statement, in the canonical source's order.
    pub fn commons(&self) -> impl Iterator<Item = &CommonStatement> {
        self.commons.values()
    }

    /// The attributes of every component of derived type `type_name`
    /// that has a `component` record.
    pub fn components_of<'a>(&'a self, type_name: &str) -> impl Iterator<Item = &'a Attributes> {
        let type_name = type_name.to_ascii_lowercase();
        self.components
            .iter()
            .filter(move |((t, _), _)| *t == type_name)
            .map(|(_, a)| a)
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

    /// Records derived type `type_name` with its components in the order
    /// of its definition (the first definition of a name is kept).
    pub fn add_type(&mut self, type_name: &str, components: &[String]) {
        self.types
            .entry(type_name.to_ascii_lowercase())
            .or_insert_with(|| components.iter().map(|c| c.to_ascii_lowercase()).collect());
    }

    /// The components of derived type `type_name` in the order of its
    /// definition (`None`: no `type` record).
    pub fn type_components(&self, type_name: &str) -> Option<&[String]> {
        self.types
            .get(&type_name.to_ascii_lowercase())
            .map(Vec::as_slice)
    }

    /// Records that unit `unit` has a bare `save` statement.
    pub fn add_saving_unit(&mut self, unit: &str) {
        self.saving_units.insert(unit.to_ascii_lowercase());
    }

    /// Whether unit `unit` has a bare `save` statement (all its variables
    /// keep their values between calls).
    pub fn saves_all(&self, unit: &str) -> bool {
        self.saving_units.contains(&unit.to_ascii_lowercase())
    }

    /// The entities unit `unit` declares, by name.
    pub fn entities_of<'a>(
        &'a self,
        unit: &str,
    ) -> impl Iterator<Item = (&'a str, &'a Attributes)> + 'a {
        let unit = unit.to_ascii_lowercase();
        self.entities
            .range((unit.clone(), String::new())..)
            .take_while(move |((u, _), _)| *u == unit)
            .map(|((_, n), a)| (n.as_str(), a))
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
        let _ = writeln!(out, "{HEADER_PREFIX}{VERSION}");
        for (tag, h) in &self.units {
            let _ = write!(out, "unit {tag} {} {}", h.kind.word(), h.name);
            for d in &h.dummies {
                let _ = write!(out, " {d}");
            }
            out.push('\n');
        }
        for (name, components) in &self.types {
            let _ = writeln!(out, "type {name} {}", components.join(" "));
        }
        let records = [("decl", &self.entities), ("component", &self.components)];
        for (kind, map) in records {
            for ((owner, name), a) in map {
                let _ = write!(out, "{kind} {owner} {name}");
                for w in a.words() {
                    out.push(' ');
                    out.push_str(&w);
                }
                out.push('\n');
            }
        }
        for (unit, statements) in &self.uses {
            for u in statements {
                let only = if u.only { "only" } else { "all" };
                let _ = write!(out, "use {unit} {} {only}", u.module);
                for (local, remote) in &u.items {
                    if local == remote {
                        let _ = write!(out, " {local}");
                    } else {
                        let _ = write!(out, " {local}=>{remote}");
                    }
                }
                out.push('\n');
            }
        }
        for c in self.commons.values() {
            let _ = write!(
                out,
                "common {} {} {} {}",
                c.first_line, c.last_line, c.unit, c.block
            );
            for m in &c.members {
                let _ = write!(out, " {m}");
            }
            out.push('\n');
        }
        for unit in &self.private_modules {
            let _ = writeln!(out, "private {unit}");
        }
        for unit in &self.saving_units {
            let _ = writeln!(out, "save {unit}");
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
        let header = format!("{HEADER_PREFIX}{VERSION}");
        match lines.next().map(|(_, l)| l.trim_end()) {
            Some(first) if first == header => {}
            Some(first) if first.starts_with(HEADER_PREFIX) => {
                return Err(error(
                    0,
                    format!(
                        "declarations file of version {}, this back end reads version {VERSION} \
                         (write it again with the fortran2xaif of the same build)",
                        &first[HEADER_PREFIX.len()..]
                    ),
                ))
            }
            _ => {
                return Err(error(
                    0,
                    format!("not a declarations file (first line must be `{header}`)"),
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
                ["save", unit] => decls.add_saving_unit(unit),
                ["type", name, ref components @ ..] if !components.is_empty() => {
                    let components: Vec<String> =
                        components.iter().map(|c| c.to_string()).collect();
                    decls.add_type(name, &components);
                }
                ["unit", tag, kind, name, ref dummies @ ..] => {
                    let Some(kind) = UnitKind::from_word(kind) else {
                        return Err(error(
                            k,
                            format!("malformed `unit` record: unknown unit kind `{kind}`"),
                        ));
                    };
                    let dummies = dummies.iter().map(|d| d.to_string()).collect();
                    let name = name.to_string();
                    decls.add_unit(
                        tag,
                        UnitHeader {
                            kind,
                            name,
                            dummies,
                        },
                    );
                }
                ["use", unit, module, only @ ("only" | "all"), ref items @ ..] => {
                    let items = items
                        .iter()
                        .map(|item| match item.split_once("=>") {
                            Some((l, r)) => (l.to_string(), r.to_string()),
                            None => (item.to_string(), item.to_string()),
                        })
                        .collect();
                    let module = module.to_string();
                    let only = only == "only";
                    decls.add_use(
                        unit,
                        UseStatement {
                            module,
                            only,
                            items,
                        },
                    );
                }
                ["common", first, last, unit, block, ref members @ ..] => {
                    let line = |w: &str| w.parse::<usize>().ok().filter(|&l| l > 0);
                    let (Some(first_line), Some(last_line)) = (line(first), line(last)) else {
                        return Err(error(
                            k,
                            "malformed `common` record: its lines must be numbers from 1".into(),
                        ));
                    };
                    if members.is_empty() || last_line < first_line {
                        return Err(error(
                            k,
                            "malformed `common` record: no members, or its last line before its first".into(),
                        ));
                    }
                    decls.add_common(CommonStatement {
                        first_line,
                        last_line,
                        unit: unit.to_string(),
                        block: block.to_string(),
                        members: members.iter().map(|m| m.to_string()).collect(),
                    });
                }
                ["decl" | "component" | "private" | "save" | "type" | "unit" | "use" | "common", ..] => {
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
        let (text, name) = XaifError::read_side_file(path, "declarations")?;
        Declarations::parse(&text, &name)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const HEADER: &str = "# openad declarations 2";

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
            initialised: true,
            rank: 2,
            type_spec: None,
        }
        .with_type("Double Precision");
        d.add("m.step", "A", every.clone());
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
            "# openad declarations 2\n\
             decl m c public\n\
             decl m x\n\
             decl m.step a parameter intent(inout) optional allocatable pointer target save private assumed-size initialised rank=2 type=doubleprecision\n\
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
    fn units_uses_and_commons_round_trip_in_their_order() {
        let mut d = Declarations::new();
        let header = |kind, name: &str, dummies: &[&str]| UnitHeader {
            kind,
            name: name.into(),
            dummies: dummies.iter().map(|d| d.to_string()).collect(),
        };
        d.add_unit("m.step", header(UnitKind::Subroutine, "Step", &["x", "Y"]));
        d.add_unit("m", header(UnitKind::Module, "m", &[]));
        d.add_unit("bd", header(UnitKind::BlockData, "init", &[]));
        d.add_unit("main", header(UnitKind::Program, "main", &[]));
        let pair = |l: &str, r: &str| (l.to_string(), r.to_string());
        // Second before first: a unit's statements keep their order.
        d.add_use(
            "m.step",
            UseStatement {
                module: "phys".into(),
                only: true,
                items: vec![pair("g", "gravity"), pair("damp", "damp")],
            },
        );
        d.add_use(
            "m.step",
            UseStatement {
                module: "consts".into(),
                only: false,
                items: vec![pair("e", "euler")],
            },
        );
        d.add_use(
            "main",
            UseStatement {
                module: "m".into(),
                only: true,
                items: vec![],
            },
        );
        let common = |first, last, unit: &str, block: &str, members: &[&str]| CommonStatement {
            first_line: first,
            last_line: last,
            unit: unit.into(),
            block: block.into(),
            members: members.iter().map(|m| m.to_string()).collect(),
        };
        d.add_common(common(40, 41, "m.step", "Blk", &["a", "B"]));
        d.add_common(common(9, 9, "main", "blk", &["p"]));
        d.add_saving_unit("M.Step");
        d.add_type("Grid", &["nx".to_string(), "H".to_string()]);
        let text = d.to_text();
        assert_eq!(
            text,
            "# openad declarations 2\n\
             unit bd block-data init\n\
             unit m module m\n\
             unit m.step subroutine step x y\n\
             unit main program main\n\
             type grid nx h\n\
             use m.step phys only g=>gravity damp\n\
             use m.step consts all e=>euler\n\
             use main m only\n\
             common 9 9 main blk p\n\
             common 40 41 m.step blk a b\n\
             save m.step\n"
        );
        let back = Declarations::parse(&text, "P.decl").unwrap();
        assert_eq!(back, d);
        assert_eq!(
            back.unit("M.Step"),
            Some(&header(UnitKind::Subroutine, "step", &["x", "y"]))
        );
        let uses = back.uses("m.step");
        assert_eq!(uses.len(), 2);
        assert_eq!(uses[0].items[0], pair("g", "gravity"));
        assert!(uses[0].only && !uses[1].only);
        assert!(back.uses("nowhere").is_empty());
        assert!(back.is_used("CONSTS") && !back.is_used("mpi"));
        let blocks: Vec<(usize, &str)> = back
            .commons()
            .map(|c| (c.first_line, c.unit.as_str()))
            .collect();
        assert_eq!(blocks, vec![(9, "main"), (40, "m.step")]);
        assert!(back.saves_all("m.step") && !back.saves_all("main"));
        assert_eq!(
            back.type_components("GRID"),
            Some(["nx".to_string(), "h".to_string()].as_slice())
        );
        assert_eq!(back.type_components("cell"), None);
    }

    #[test]
    fn the_entities_of_one_unit() {
        let mut d = Declarations::new();
        let integer = Attributes::default().with_type("integer");
        d.add("m", "n", integer.clone());
        d.add("m.step", "b", Attributes::default());
        d.add("m.step", "a", integer.clone());
        d.add("m.stepper", "c", Attributes::default());
        let names: Vec<&str> = d.entities_of("M.Step").map(|(n, _)| n).collect();
        assert_eq!(names, ["a", "b"]);
        let a = d.entities_of("m.step").next().unwrap().1;
        assert_eq!(a.type_spec.as_deref(), Some("integer"));
        assert_eq!(d.entities_of("none").count(), 0);
    }

    #[test]
    fn components_of_a_type() {
        let mut d = Declarations::new();
        let allocatable = Attributes {
            allocatable: true,
            ..Attributes::default()
        };
        d.add_component("grid", "h", allocatable);
        d.add_component("grid", "dx", Attributes::default());
        d.add_component("gridded", "w", Attributes::default());
        let of_grid: Vec<&Attributes> = d.components_of("Grid").collect();
        assert_eq!(of_grid.len(), 2);
        assert_eq!(of_grid.iter().filter(|a| a.allocatable).count(), 1);
        assert_eq!(d.components_of("none").count(), 0);
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
        d.add("u", "p", pointer.clone());
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
        for bad in [
            "unit m.step function step",
            "unit m",
            "use m.step phys some a",
            "use m.step",
            "common 3 two u blk a",
            "common 0 1 u blk a",
            "common 5 4 u blk a",
            "common 4 4 u blk",
            "decl m y rank=0",
            "decl m y rank=two",
            "decl m y type=",
            "save",
            "type grid",
        ] {
            let text = format!("{HEADER}\ndecl m x\n{bad}\n");
            let e = Declarations::parse(&text, "P.decl").unwrap_err();
            assert_eq!(e.line, 3, "{bad}: {}", e.message);
        }
        let e = Declarations::parse("# openad declarations 1\ndecl m x\n", "P.decl").unwrap_err();
        assert_eq!(e.line, 1);
        assert!(e.message.contains("version 1"), "{}", e.message);
        let text = format!("{HEADER}\nsymbol 1\n");
        assert!(Declarations::parse(&text, "P.decl")
            .unwrap_err()
            .message
            .contains("unknown record"));
    }
}
