//! The layout of a routine's active local arrays: an array of
//! `type(active)` (values and derivatives interleaved, `h(i)%v`,
//! `h(i)%d`) or two plain `real(8)` arrays of the same shape (`oad_v_h(i)`,
//! `oad_d_h(i)`, Tapenade's `x` and `xb`).
//!
//! The split layout lets gfortran vectorise the sweeps' loops (unit
//! stride) and makes a sweep that only reads values or only derivatives
//! touch half the memory (docs/backend.md, "Layout of active local
//! arrays"). It is an internal matter of one routine, so it is only taken
//! where nothing outside the routine sees the array: a local of the unit
//! (not a dummy, function result, module or common variable; not a
//! pointer or target; no initial value; not in a unit with a bare `save`
//! statement),
//! in a unit without internal procedures (which would see it by host
//! association), whose every reference in the generated unit has a
//! spelling in the split layout:
//!
//! | AoS | split |
//! |---|---|
//! | `h(s)%v`, `h%v`, `h(s)%d`, `h%d` | `oad_v_h(s)`, `oad_v_h`, `oad_d_h(s)`, `oad_d_h` |
//! | `lbound(h…)`, `ubound`, `size`, `shape`, `allocated` | the same of `oad_v_h` |
//! | `allocate(h(b))` (first in its line, no `stat=`/`source=`) | `allocate(oad_v_h(b), oad_d_h(b))`, then `oad_d_h = 0` |
//! | `deallocate(h)` | `deallocate(oad_v_h, oad_d_h)` |
//! | `call move_alloc(a, b)` (both split) | one call per part |
//! | `call oad_zero_d(h)` | `oad_d_h = 0` |
//! | the declaration | `real(8)` with the same attributes, both parts |
//!
//! Any other reference (an actual argument of a call, a whole-object
//! assignment, a checkpoint of the `type(active)` object) keeps the
//! array in the AoS layout, and so does the partner of a `move_alloc`
//! that stays AoS. The derivative part of a non-allocatable array is
//! zeroed where the unit's executable part starts, as `type(active)`'s
//! default initialisation did (`d = 0`); of a `save`d one by its
//! declaration (`oad_d_h(n) = 0`: once, as the default initialisation of
//! a saved variable is). The decision and the rewriting
//! work on the generated text of one unit, after code generation, so the
//! rest of the back end keeps writing one layout.

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};

use crate::fortran_text::{tokenize, Tok, TokKind};

/// `--active-layout`: whether active local arrays, and dummies
/// (`split_interface.rs`), may be split.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ActiveLayout {
    /// Every active variable is `type(active)`.
    Aos,
    /// Active local arrays get two `real(8)` arrays where allowed;
    /// dummies stay `type(active)`.
    Locals,
    /// Active local arrays and the dummies of routines whose every call
    /// the back end rewrites get two `real(8)` arrays where allowed.
    #[default]
    Split,
}

impl ActiveLayout {
    pub fn from_name(name: &str) -> Option<ActiveLayout> {
        match name {
            "aos" => Some(ActiveLayout::Aos),
            "locals" => Some(ActiveLayout::Locals),
            "split" => Some(ActiveLayout::Split),
            _ => None,
        }
    }
}

/// Why an active array keeps the `type(active)` layout.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Kept {
    /// Named in the unit's header: a dummy or the function result.
    Interface,
    /// A declaration attribute or form the split layout does not repeat
    /// (pointer, target, an initial value, several entities, ...).
    Declaration(String),
    /// Seen by internal procedures through host association.
    HostOfInternal,
    /// Named whole where the split layout has no spelling (the line).
    WholeReference(String),
    /// Moved to or from an array that keeps the AoS layout.
    PartnerKept(String),
}

/// Which active local arrays of a unit are split, and why the others are not.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Decision {
    pub split: BTreeSet<String>,
    pub kept: BTreeMap<String, Kept>,
    /// The actual arguments the unit passes at the split positions of the
    /// routines it calls (`split_interface.rs`).
    pub actuals: Vec<Actual>,
}

/// An actual argument at a position where the callee's interface takes the
/// split layout: `array` is the active array of this unit it names (whole,
/// a section or an element), `None` when it names none; `designator`: it
/// is a variable that `X%v, X%d` can spell (what a scalar dummy taking
/// the split layout accepts, see [`Interfaces::scalars`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Actual {
    pub callee: String,
    pub position: usize,
    pub array: Option<String>,
    pub designator: bool,
}

/// What the program's routines agreed about their interfaces
/// (`split_interface.rs`): the unit's own dummies taking the split layout
/// (named in its first `header_len` lines), and per routine it may call
/// (lower case), the positions (from 0) of its dummies that take two
/// actuals; `scalars`: of those, the positions whose dummy is a scalar
/// (its actual, a variable of this unit that is not split, is passed as
/// `X%v, X%d`: scalars are passed by reference, no copy is made).
#[derive(Debug, Clone, Copy)]
pub struct Interfaces<'a> {
    pub dummies: &'a BTreeSet<String>,
    pub header_len: usize,
    pub callees: &'a HashMap<String, BTreeSet<usize>>,
    pub scalars: &'a HashMap<String, BTreeSet<usize>>,
}

impl Interfaces<'_> {
    /// Every interface stays `type(active)`.
    pub fn none() -> Interfaces<'static> {
        static NO_DUMMIES: BTreeSet<String> = BTreeSet::new();
        static NO_CALLEES: std::sync::OnceLock<HashMap<String, BTreeSet<usize>>> =
            std::sync::OnceLock::new();
        let none = NO_CALLEES.get_or_init(HashMap::new);
        Interfaces {
            dummies: &NO_DUMMIES,
            header_len: 0,
            callees: none,
            scalars: none,
        }
    }
}

/// The longest Fortran name.
const MAX_NAME: usize = 63;
const VALUE_PREFIX: &str = "oad_v_";
const DERIV_PREFIX: &str = "oad_d_";
/// Inquiries that answer the same for either part.
const INQUIRIES: [&str; 5] = ["lbound", "ubound", "size", "shape", "allocated"];

fn value_name(n: &str) -> String {
    format!("{VALUE_PREFIX}{n}")
}

fn deriv_name(n: &str) -> String {
    format!("{DERIV_PREFIX}{n}")
}

/// A declaration `type(active)[, attrs] :: name[(shape)]`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ActiveDecl {
    pub(crate) name: String,
    pub(crate) attrs: Vec<String>,
    pub(crate) shape: String,
    pub(crate) allocatable: bool,
    /// `save` without `allocatable`: the derivative is initialised once.
    saved: bool,
}

/// A `type(active)` declaration line: the declared array, or why it cannot
/// be split (`None`: not a `type(active)` declaration, or a scalar).
pub(crate) fn active_decl(line: &str) -> Option<Result<ActiveDecl, (String, Kept)>> {
    let code = crate::fortran_text::code_part(line).trim();
    let lower = code.to_ascii_lowercase();
    let rest = lower.strip_prefix("type")?.trim_start();
    let rest = rest.strip_prefix('(')?.trim_start();
    let rest = rest.strip_prefix("active")?.trim_start();
    let rest = rest.strip_prefix(')')?;
    let (attrs_text, entity) = rest.split_once("::")?;
    let attrs: Vec<String> = split_top_commas(attrs_text)
        .into_iter()
        .map(|a| a.trim().to_string())
        .filter(|a| !a.is_empty())
        .collect();
    let entity = entity.trim();
    let name_end = entity
        .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .unwrap_or(entity.len());
    let name = entity[..name_end].to_string();
    let after = entity[name_end..].trim();
    let shape = if after.starts_with('(') && after.ends_with(')') && balanced(after) {
        after.to_string()
    } else {
        String::new()
    };
    let dimension = attrs.iter().any(|a| a.starts_with("dimension"));
    if shape.is_empty() && !dimension && after.is_empty() {
        return None; // a scalar
    }
    let kept = |why: &str| Some(Err((name.clone(), Kept::Declaration(why.to_string()))));
    if name.is_empty() {
        return None;
    }
    if !after.is_empty() && shape.is_empty() {
        return kept("an initial value or several entities");
    }
    let allocatable = attrs.iter().any(|a| a == "allocatable");
    for a in &attrs {
        let ok = a == "allocatable" || a.starts_with("dimension") || a == "save";
        if !ok {
            return kept(&format!("attribute '{a}'"));
        }
    }
    if name.len() + VALUE_PREFIX.len() > MAX_NAME {
        return kept("its name is too long for a prefix");
    }
    // Keep the user's spelling of the attributes (the text is lower case).
    let original_attrs: Vec<String> = {
        let at = code.find("::").unwrap_or(0);
        let head = &code[..at];
        let open = head.find(')').map(|p| p + 1).unwrap_or(head.len());
        split_top_commas(&head[open..])
            .into_iter()
            .map(|a| a.trim().to_string())
            .filter(|a| !a.is_empty())
            .collect()
    };
    let original_shape = {
        let at = code.find("::").unwrap_or(0) + 2;
        let ent = code[at..].trim();
        ent[name_end..].trim().to_string()
    };
    Some(Ok(ActiveDecl {
        name,
        attrs: original_attrs,
        shape: if shape.is_empty() {
            String::new()
        } else {
            original_shape
        },
        allocatable,
        saved: !allocatable && attrs.iter().any(|a| a == "save"),
    }))
}

/// A scalar `type(active) :: name` without attributes: what a dummy the
/// plan may split looks like (`split_interface.rs`; a local scalar stays
/// `type(active)`, gfortran keeps it in registers anyway).
pub(crate) fn active_scalar(line: &str) -> Option<ActiveDecl> {
    let code = crate::fortran_text::code_part(line).trim();
    let lower = code.to_ascii_lowercase();
    let rest = lower.strip_prefix("type")?.trim_start();
    let rest = rest.strip_prefix('(')?.trim_start();
    let rest = rest.strip_prefix("active")?.trim_start();
    let rest = rest.strip_prefix(')')?.trim_start();
    let entity = rest.strip_prefix("::")?.trim();
    let is_name = entity.starts_with(|c: char| c.is_ascii_alphabetic())
        && entity
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_');
    if !is_name || entity.len() + VALUE_PREFIX.len() > MAX_NAME {
        return None;
    }
    Some(ActiveDecl {
        name: code[code.len() - entity.len()..].to_string(),
        attrs: Vec::new(),
        shape: String::new(),
        allocatable: false,
        saved: false,
    })
}

fn balanced(s: &str) -> bool {
    let mut depth = 0i32;
    for (i, c) in s.char_indices() {
        match c {
            '(' => depth += 1,
            ')' => {
                depth -= 1;
                if depth == 0 && i + 1 != s.len() {
                    return false;
                }
            }
            _ => {}
        }
    }
    depth == 0
}

fn split_top_commas(text: &str) -> Vec<String> {
    let mut parts = vec![String::new()];
    let mut depth = 0i32;
    for c in text.chars() {
        match c {
            '(' => depth += 1,
            ')' => depth -= 1,
            ',' if depth == 0 => {
                parts.push(String::new());
                continue;
            }
            _ => {}
        }
        parts.last_mut().unwrap().push(c);
    }
    parts
}

/// One line's tokens with the helpers the classification needs.
struct Line<'a> {
    text: &'a str,
    toks: Vec<Tok>,
}

impl<'a> Line<'a> {
    fn new(text: &'a str) -> Self {
        Line {
            text,
            toks: tokenize(text),
        }
    }
    fn s(&self, k: usize) -> &'a str {
        &self.text[self.toks[k].start..self.toks[k].end]
    }
    fn is_code(&self, k: usize) -> bool {
        !matches!(self.toks[k].kind, TokKind::Space | TokKind::Comment)
    }
    fn next(&self, k: usize) -> Option<usize> {
        (k + 1..self.toks.len()).find(|&j| self.is_code(j))
    }
    fn prev(&self, k: usize) -> Option<usize> {
        (0..k).rev().find(|&j| self.is_code(j))
    }
    fn first(&self) -> Option<usize> {
        (0..self.toks.len()).find(|&j| self.is_code(j))
    }
    fn is(&self, k: Option<usize>, what: &str) -> bool {
        k.is_some_and(|k| self.s(k).eq_ignore_ascii_case(what))
    }
    /// The `)` matching the `(` at `open`, on this line.
    fn close_of(&self, open: usize) -> Option<usize> {
        let mut depth = 0usize;
        for j in open..self.toks.len() {
            if self.toks[j].kind != TokKind::Punct {
                continue;
            }
            match self.s(j) {
                "(" => depth += 1,
                ")" => {
                    depth -= 1;
                    if depth == 0 {
                        return Some(j);
                    }
                }
                _ => {}
            }
        }
        None
    }
    /// The `(` of the innermost parenthesis enclosing token `k`.
    fn enclosing_open(&self, k: usize) -> Option<usize> {
        let mut depth = 0usize;
        for j in (0..k).rev() {
            if self.toks[j].kind != TokKind::Punct {
                continue;
            }
            match self.s(j) {
                ")" => depth += 1,
                "(" if depth == 0 => return Some(j),
                "(" => depth -= 1,
                _ => {}
            }
        }
        None
    }
    /// The arguments of the list opened at `open`: each one's first and
    /// last token (`None`: the list does not close on this line, or an
    /// argument is empty).
    fn arguments(&self, open: usize) -> Option<Vec<(usize, usize)>> {
        let close = self.close_of(open)?;
        let mut args = Vec::new();
        let (mut first, mut last) = (None, None);
        let mut depth = 0usize;
        for j in open + 1..close {
            if !self.is_code(j) {
                continue;
            }
            if self.toks[j].kind == TokKind::Punct {
                match self.s(j) {
                    "(" => depth += 1,
                    ")" => depth -= 1,
                    "," if depth == 0 => {
                        args.push((first?, last?));
                        (first, last) = (None, None);
                        continue;
                    }
                    _ => {}
                }
            }
            first.get_or_insert(j);
            last = Some(j);
        }
        if first.is_some() || !args.is_empty() {
            args.push((first?, last?));
        }
        Some(args)
    }
    /// The candidate an actual argument (tokens `first..=last`) names as a
    /// whole, a section or an element: `h` or `h(s)` with no candidate in
    /// `s`.
    fn split_actual(
        &self,
        first: usize,
        last: usize,
        candidates: &HashSet<String>,
    ) -> Option<String> {
        let name = self.s(first).to_ascii_lowercase();
        if self.toks[first].kind != TokKind::Ident || !candidates.contains(&name) {
            return None;
        }
        if first == last {
            return Some(name);
        }
        let open = self.next(first).filter(|&j| self.s(j) == "(")?;
        if self.close_of(open) != Some(last) {
            return None;
        }
        let inner_candidate = (open..last).any(|j| {
            self.toks[j].kind == TokKind::Ident
                && candidates.contains(&self.s(j).to_ascii_lowercase())
        });
        (!inner_candidate).then_some(name)
    }
    /// Whether an actual argument (tokens `first..=last`) is a variable
    /// `X` that `X%v, X%d` spells: a name with subscripts and components
    /// (`fl`, `u(i)`, `c%x`, `s(k)%a(2)`), no candidate inside; a
    /// candidate itself only in the form [`Line::split_actual`] takes.
    fn designator(&self, first: usize, last: usize, candidates: &HashSet<String>) -> bool {
        if self.toks[first].kind != TokKind::Ident {
            return false;
        }
        if candidates.contains(&self.s(first).to_ascii_lowercase()) {
            return self.split_actual(first, last, candidates).is_some();
        }
        let names_candidate = |from: usize, to: usize| {
            (from..to).any(|j| {
                self.toks[j].kind == TokKind::Ident
                    && candidates.contains(&self.s(j).to_ascii_lowercase())
            })
        };
        let mut j = first;
        while j != last {
            let Some(n) = self.next(j).filter(|&n| n <= last) else {
                return false;
            };
            match self.s(n) {
                "(" => match self.close_of(n) {
                    Some(c) if c <= last && !names_candidate(n, c) => j = c,
                    _ => return false,
                },
                "%" => match self.next(n).filter(|&m| m <= last) {
                    Some(m) if self.toks[m].kind == TokKind::Ident => j = m,
                    _ => return false,
                },
                _ => return false,
            }
        }
        // `X%v` is a real, not an active variable.
        let part = self.s(last).to_ascii_lowercase();
        !(matches!(part.as_str(), "v" | "d") && self.prev(last).is_some_and(|p| self.s(p) == "%"))
    }
    /// The names of a bare identifier list `(a, b, c)` opened at `open`.
    fn bare_list(&self, open: usize) -> Option<(Vec<usize>, usize)> {
        let close = self.close_of(open)?;
        let mut names = Vec::new();
        let mut k = self.next(open)?;
        while k < close {
            if self.toks[k].kind != TokKind::Ident {
                return None;
            }
            names.push(k);
            let sep = self.next(k)?;
            if sep == close {
                break;
            }
            if self.s(sep) != "," {
                return None;
            }
            k = self.next(sep)?;
        }
        Some((names, close))
    }
}

/// A text edit of one line: bytes `start..end` become `text`.
#[derive(Debug, Clone)]
struct Edit {
    start: usize,
    end: usize,
    text: String,
}

/// What one reference of a candidate asks for, or `None` when the split
/// layout cannot spell it.
struct Use {
    edits: Vec<Edit>,
    /// Lines to put after this one (zeroing after an allocation).
    after: Vec<String>,
    /// The other array of a `move_alloc`.
    partner: Option<String>,
}

/// How the reference of candidate `name` at token `k` is written in the
/// split layout (`None`: it cannot be).
fn classify(
    line: &Line,
    k: usize,
    name: &str,
    candidates: &HashSet<String>,
    callees: &HashMap<String, BTreeSet<usize>>,
) -> Option<Use> {
    let tok = line.toks[k];
    let name_edit = |to: String| Edit {
        start: tok.start,
        end: tok.end,
        text: to,
    };
    let simple = |edits: Vec<Edit>| {
        Some(Use {
            edits,
            after: Vec::new(),
            partner: None,
        })
    };
    let after_name = line.next(k);
    // `h(s)%v` / `h%v` and the same with `%d`.
    let suffix_at = match after_name {
        Some(j) if line.s(j) == "(" => line.close_of(j).and_then(|c| line.next(c)),
        j => j,
    };
    if let Some(pct) = suffix_at.filter(|&j| line.s(j) == "%") {
        let part = line.next(pct)?;
        let which = line.s(part).to_ascii_lowercase();
        if line.next(part).is_some_and(|j| line.s(j) == "%") {
            return None;
        }
        let new = match which.as_str() {
            "v" => value_name(name),
            "d" => deriv_name(name),
            _ => return None,
        };
        return simple(vec![
            name_edit(new),
            Edit {
                start: line.toks[pct].start,
                end: line.toks[part].end,
                text: String::new(),
            },
        ]);
    }
    // Everything else names the object itself, inside a parenthesis.
    let open = line.enclosing_open(k)?;
    let callee = line.prev(open);
    let callee_name = callee.map(|c| line.s(c).to_ascii_lowercase());
    let callee_name = callee_name.as_deref().unwrap_or("");
    let is_first_arg = line.next(open) == Some(k);
    let bare = after_name.is_some_and(|j| matches!(line.s(j), "," | ")"));
    if INQUIRIES.contains(&callee_name) && is_first_arg && bare {
        return simple(vec![name_edit(value_name(name))]);
    }
    let stmt_first = line.first();
    let indent = " ".repeat(line.text.len() - line.text.trim_start().len());
    match callee_name {
        "allocate" if stmt_first == callee && after_name.is_some_and(|j| line.s(j) == "(") => {
            let close = line.close_of(open)?;
            if (open..close).any(|j| line.s(j) == "=") {
                return None; // stat=, source=, mold=
            }
            let shape_open = after_name?;
            let shape_close = line.close_of(shape_open)?;
            let shape = &line.text[line.toks[shape_open].start..line.toks[shape_close].end];
            Some(Use {
                edits: vec![
                    name_edit(value_name(name)),
                    Edit {
                        start: line.toks[shape_close].end,
                        end: line.toks[shape_close].end,
                        text: format!(", {}{shape}", deriv_name(name)),
                    },
                ],
                after: vec![format!("{indent}{} = 0", deriv_name(name))],
                partner: None,
            })
        }
        "deallocate" if bare => {
            let close = line.close_of(open)?;
            if (open..close).any(|j| line.s(j) == "=") {
                return None;
            }
            simple(vec![name_edit(format!(
                "{}, {}",
                value_name(name),
                deriv_name(name)
            ))])
        }
        "move_alloc" | "oad_zero_d" => {
            let call = callee.and_then(|c| line.prev(c))?;
            if !line.is(Some(call), "call") {
                return None;
            }
            let (args, close) = line.bare_list(open)?;
            if line.next(close).is_some() {
                return None;
            }
            let arg_names: Vec<String> = args
                .iter()
                .map(|&a| line.s(a).to_ascii_lowercase())
                .collect();
            let span = |text: String| Edit {
                start: line.toks[call].start,
                end: line.toks[close].end,
                text,
            };
            // A logical `if (c) stmt` takes one statement: make it a block.
            let logical_if = stmt_first != Some(call);
            if callee_name == "oad_zero_d" {
                if arg_names.len() != 1 {
                    return None;
                }
                return simple(vec![span(format!("{} = 0", deriv_name(name)))]);
            }
            if arg_names.len() != 2 || !arg_names.iter().all(|a| candidates.contains(a)) {
                return None;
            }
            let (from, to) = (&arg_names[0], &arg_names[1]);
            let partner = if from == name { to } else { from };
            let calls = format!(
                "call move_alloc({}, {}); call move_alloc({}, {})",
                value_name(from),
                value_name(to),
                deriv_name(from),
                deriv_name(to)
            );
            let text = if logical_if {
                if !line.is(stmt_first, "if") {
                    return None;
                }
                format!("then; {calls}; end if")
            } else {
                calls
            };
            // Both names of the call share one edit: only the first makes it.
            let edits = if args[0] == k {
                vec![span(text)]
            } else {
                Vec::new()
            };
            Some(Use {
                edits,
                after: Vec::new(),
                partner: Some(partner.clone()),
            })
        }
        // An actual argument where the callee takes the two parts.
        _ => {
            let call = callee.and_then(|c| line.prev(c));
            let positions = callees.get(callee_name).filter(|_| line.is(call, "call"))?;
            let args = line.arguments(open)?;
            let p = args.iter().position(|&(first, _)| first == k)?;
            let (first, last) = args[p];
            if !positions.contains(&p) || line.split_actual(first, last, candidates)? != name {
                return None;
            }
            let rest = &line.text[tok.end..line.toks[last].end];
            simple(vec![Edit {
                start: tok.start,
                end: line.toks[last].end,
                text: format!("{}{rest}, {}{rest}", value_name(name), deriv_name(name)),
            }])
        }
    }
}

/// Decides which active local arrays of a unit's generated text (`lines`,
/// from its header on) are split. `interface` holds the names of the
/// header (dummies, function and result names); `has_internal` says the
/// unit contains internal procedures.
pub fn decide(lines: &[String], interface: &HashSet<String>, has_internal: bool) -> Decision {
    decide_with_uses(
        lines,
        lines.len(),
        interface,
        has_internal,
        Interfaces::none(),
    )
    .0
}

/// [`decide`] where the unit's dummies `iface.dummies` may take the split
/// layout and the routines it calls take two actuals at the positions
/// `iface.callees` says; `body_at` as in [`apply_with`].
pub fn decide_with(
    lines: &[String],
    body_at: usize,
    interface: &HashSet<String>,
    has_internal: bool,
    iface: Interfaces,
) -> Decision {
    let body_at = first_executable(lines, body_at);
    decide_with_uses(lines, body_at, interface, has_internal, iface).0
}

type LineUses = Vec<Vec<(String, Use)>>;

/// The actuals a line passes at the split positions of the routines it
/// calls (`call name(...)`); an argument list that does not close on the
/// line gives no array at any split position.
fn split_actuals(
    line: &Line,
    candidates: &HashSet<String>,
    callees: &HashMap<String, BTreeSet<usize>>,
) -> Vec<Actual> {
    let mut out = Vec::new();
    for k in 0..line.toks.len() {
        if line.toks[k].kind != TokKind::Ident {
            continue;
        }
        let callee = line.s(k).to_ascii_lowercase();
        let Some(positions) = callees.get(&callee) else {
            continue;
        };
        let open = line.next(k).filter(|&j| line.s(j) == "(");
        if !line.is(line.prev(k), "call") || open.is_none() {
            continue;
        }
        let args = open.and_then(|o| line.arguments(o));
        for &p in positions {
            let actual = args.as_ref().and_then(|a| a.get(p));
            let array =
                actual.and_then(|&(first, last)| line.split_actual(first, last, candidates));
            let designator =
                actual.is_some_and(|&(first, last)| line.designator(first, last, candidates));
            out.push(Actual {
                callee: callee.clone(),
                position: p,
                array,
                designator,
            });
        }
    }
    out
}

/// [`decide`], with the references' rewrites; declarations at or after
/// `body_at` (inside the executable part: a `block` construct's) are
/// never split, their zeroing would come too late.
fn decide_with_uses(
    lines: &[String],
    body_at: usize,
    interface: &HashSet<String>,
    has_internal: bool,
    iface: Interfaces,
) -> (Decision, LineUses, BTreeMap<usize, ActiveDecl>) {
    let mut decision = Decision::default();
    let mut decls: BTreeMap<usize, ActiveDecl> = BTreeMap::new();
    // A bare `save` saves every local: their derivatives must persist
    // between calls, which zeroing at entry would not repeat.
    let saves_all = lines[..body_at.min(lines.len())].iter().any(|l| {
        crate::fortran_text::code_part(l)
            .trim()
            .eq_ignore_ascii_case("save")
    });
    for (i, l) in lines.iter().enumerate() {
        match active_decl(l) {
            Some(Ok(d)) => {
                let name = d.name.as_str().to_ascii_lowercase();
                if i >= body_at {
                    decision.kept.insert(
                        name,
                        Kept::Declaration("declared in the executable part".into()),
                    );
                } else if interface.contains(&name) && !iface.dummies.contains(&name) {
                    decision.kept.insert(name, Kept::Interface);
                } else if has_internal {
                    decision.kept.insert(name, Kept::HostOfInternal);
                } else if saves_all && !d.allocatable {
                    decision.kept.insert(
                        name,
                        Kept::Declaration("a `save` statement saves it".into()),
                    );
                } else {
                    decls.insert(i, d);
                }
            }
            Some(Err((name, why))) => {
                decision.kept.insert(name.to_ascii_lowercase(), why);
            }
            // A scalar: only a dummy the plan splits is a candidate.
            None => {
                if let Some(d) = active_scalar(l) {
                    let name = d.name.to_ascii_lowercase();
                    if i < body_at && !has_internal && iface.dummies.contains(&name) {
                        decls.insert(i, d);
                    }
                }
            }
        }
    }
    let candidates: HashSet<String> = decls
        .values()
        .map(|d| d.name.as_str().to_ascii_lowercase())
        .collect();
    let mut uses: LineUses = Vec::with_capacity(lines.len());
    let mut kept: BTreeMap<String, Kept> = BTreeMap::new();
    for (i, l) in lines.iter().enumerate() {
        let mut here = Vec::new();
        let line = Line::new(l);
        if i < iface.header_len {
            // The header names a split dummy: it takes both parts.
            for k in 0..line.toks.len() {
                let name = line.s(k).to_ascii_lowercase();
                if line.toks[k].kind == TokKind::Ident
                    && candidates.contains(&name)
                    && iface.dummies.contains(&name)
                {
                    let tok = line.toks[k];
                    let edit = Edit {
                        start: tok.start,
                        end: tok.end,
                        text: format!("{}, {}", value_name(&name), deriv_name(&name)),
                    };
                    let u = Use {
                        edits: vec![edit],
                        after: Vec::new(),
                        partner: None,
                    };
                    here.push((name, u));
                }
            }
            uses.push(here);
            continue;
        }
        decision
            .actuals
            .extend(split_actuals(&line, &candidates, iface.callees));
        // On a declaration line, the declared name itself is rewritten
        // with the declaration; another candidate in its bounds is not.
        let mut declared = decls.get(&i).map(|d| d.name.as_str().to_ascii_lowercase());
        for k in 0..line.toks.len() {
            if line.toks[k].kind == TokKind::Comment {
                // A directive (`!$omp private(h)`) names the object itself.
                let c = line.s(k).to_ascii_lowercase();
                if c.starts_with("!$") || c.starts_with("!dir$") || c.starts_with("!dec$") {
                    for t in tokenize(&c[1..]) {
                        let n = &c[1 + t.start..1 + t.end];
                        if t.kind == TokKind::Ident && candidates.contains(n) {
                            kept.entry(n.to_string())
                                .or_insert_with(|| Kept::WholeReference(l.trim().to_string()));
                        }
                    }
                }
                continue;
            }
            if line.toks[k].kind != TokKind::Ident {
                continue;
            }
            let name = line.s(k).to_ascii_lowercase();
            if !candidates.contains(&name) || line.prev(k).is_some_and(|p| line.s(p) == "%") {
                continue;
            }
            if declared.as_ref() == Some(&name) {
                declared = None;
                continue;
            }
            if decls.contains_key(&i) {
                // Another candidate in a declared array's bounds: an
                // inquiry (`tmp(size(a))`) is re-spelled in the rebuilt
                // declaration by the second round (`apply_named`).
                let inquiry = line
                    .enclosing_open(k)
                    .and_then(|o| line.prev(o))
                    .is_some_and(|c| INQUIRIES.contains(&line.s(c).to_ascii_lowercase().as_str()));
                let spelled =
                    inquiry && classify(&line, k, &name, &candidates, iface.callees).is_some();
                if !spelled {
                    kept.entry(name)
                        .or_insert_with(|| Kept::WholeReference(l.trim().to_string()));
                }
                continue;
            }
            match classify(&line, k, &name, &candidates, iface.callees) {
                Some(u) => here.push((name, u)),
                None => {
                    kept.entry(name)
                        .or_insert_with(|| Kept::WholeReference(l.trim().to_string()));
                }
            }
        }
        uses.push(here);
    }
    // A move_alloc partner that stays AoS keeps the other one AoS too.
    loop {
        let mut changed = false;
        for line in &uses {
            for (name, u) in line {
                if let Some(p) = &u.partner {
                    if kept.contains_key(p) && !kept.contains_key(name) {
                        kept.insert(name.clone(), Kept::PartnerKept(p.clone()));
                        changed = true;
                    }
                }
            }
        }
        if !changed {
            break;
        }
    }
    for name in candidates {
        match kept.remove(&name) {
            Some(why) => {
                decision.kept.insert(name, why);
            }
            None => {
                decision.split.insert(name);
            }
        }
    }
    (decision, uses, decls)
}

/// Type keywords a declaration statement starts with.
const DECL_STARTS: [&str; 8] = [
    "type(",
    "type (",
    "integer",
    "real",
    "logical",
    "character",
    "complex",
    "double precision",
];

/// The first line at or after `from` that is not a declaration (a
/// template's body may start with its own, `type(modetype) :: ...`).
fn first_executable(lines: &[String], from: usize) -> usize {
    (from..lines.len())
        .find(|&i| {
            let l = lines[i].trim().to_ascii_lowercase();
            let decl = l.contains("::") && DECL_STARTS.iter().any(|k| l.starts_with(k));
            !(decl || l.is_empty() || l.starts_with('!'))
        })
        .unwrap_or(lines.len())
}

/// Rewrites a unit's generated text (from its header on) to the split
/// layout where [`decide`] allows it. The derivatives of non-allocatable
/// split arrays are zeroed at the first executable line at or after
/// `body_at` (the start of the template's body or of the generated code).
/// Returns the decision.
pub fn apply(
    lines: &mut Vec<String>,
    body_at: usize,
    interface: &HashSet<String>,
    has_internal: bool,
) -> Decision {
    apply_with(lines, body_at, interface, has_internal, Interfaces::none())
}

/// [`apply`] with split dummies and calls passing two actuals where
/// `iface` says (`split_interface.rs`). A split dummy's derivative part
/// comes from the caller: it is not zeroed at entry.
pub fn apply_with(
    lines: &mut Vec<String>,
    body_at: usize,
    interface: &HashSet<String>,
    has_internal: bool,
    iface: Interfaces,
) -> Decision {
    let body_at = first_executable(lines, body_at);
    let (decision, uses, decls) = decide_with_uses(lines, body_at, interface, has_internal, iface);
    let split = &decision.split;
    let wraps: Vec<Vec<Edit>> = lines
        .iter()
        .enumerate()
        .map(|(i, l)| {
            if i < iface.header_len || iface.scalars.is_empty() {
                Vec::new()
            } else {
                scalar_actual_edits(&Line::new(l), split, iface)
            }
        })
        .collect();
    if split.is_empty() && wraps.iter().all(Vec::is_empty) {
        return decision;
    }
    let mut out: Vec<String> = Vec::with_capacity(lines.len() + split.len());
    let mut zero_at_entry = Vec::new();
    for (i, l) in lines.iter().enumerate() {
        if i == body_at {
            let indent = " ".repeat(l.len() - l.trim_start().len());
            out.extend(zero_at_entry.iter().map(|n| format!("{indent}{n} = 0")));
            zero_at_entry.clear();
        }
        if let Some(d) = decls
            .get(&i)
            .filter(|d| split.contains(&d.name.as_str().to_ascii_lowercase()))
        {
            let indent = &l[..l.len() - l.trim_start().len()];
            let attrs: String = d.attrs.iter().map(|a| format!(", {a}")).collect();
            // A saved array's derivative starts at 0 once, not per call.
            let init = if d.saved { " = 0.0d0" } else { "" };
            out.push(format!(
                "{indent}real(8){attrs} :: {}{}, {}{}{init}",
                value_name(&d.name),
                d.shape,
                deriv_name(&d.name),
                d.shape
            ));
            let dummy = iface
                .dummies
                .contains(&d.name.as_str().to_ascii_lowercase());
            if !d.allocatable && !d.saved && !dummy {
                zero_at_entry.push(deriv_name(&d.name));
            }
            continue;
        }
        let mut edits: Vec<&Edit> = wraps[i].iter().collect();
        let mut after: Vec<String> = Vec::new();
        for (name, u) in &uses[i] {
            if split.contains(name) {
                edits.extend(u.edits.iter());
                after.extend(u.after.iter().cloned());
            }
        }
        if edits.is_empty() {
            out.push(l.clone());
            continue;
        }
        edits.sort_by_key(|e| (e.start, e.end));
        let mut text = String::with_capacity(l.len() + 32);
        let mut at = 0;
        for e in edits {
            // Nested references (a bound of an allocation that names another
            // split array) are rewritten by the next round below.
            if e.start < at {
                continue;
            }
            text.push_str(&l[at..e.start]);
            text.push_str(&e.text);
            at = e.end;
        }
        text.push_str(&l[at..]);
        out.push(text);
        out.extend(after);
    }
    if body_at >= lines.len() {
        out.extend(zero_at_entry.iter().map(|n| format!("  {n} = 0")));
    }
    // References inside the copied bounds of an allocation.
    apply_named(&mut out, &decision.split);
    *lines = out;
    decision
}

/// The edits that pass an actual which is not split, at a scalar position
/// of a call where the callee takes the split layout, as `X%v, X%d`
/// (the plan checked that each is a [`Line::designator`]; a split one is
/// rewritten by its own use).
fn scalar_actual_edits(line: &Line, split: &BTreeSet<String>, iface: Interfaces) -> Vec<Edit> {
    let mut out = Vec::new();
    for k in 0..line.toks.len() {
        if line.toks[k].kind != TokKind::Ident || !line.is(line.prev(k), "call") {
            continue;
        }
        let callee = line.s(k).to_ascii_lowercase();
        let (Some(scalars), Some(positions)) =
            (iface.scalars.get(&callee), iface.callees.get(&callee))
        else {
            continue;
        };
        let Some(args) = line
            .next(k)
            .filter(|&j| line.s(j) == "(")
            .and_then(|open| line.arguments(open))
        else {
            continue;
        };
        for p in scalars.intersection(positions) {
            let Some(&(first, last)) = args.get(*p) else {
                continue;
            };
            if split.contains(&line.s(first).to_ascii_lowercase()) {
                continue;
            }
            let (start, end) = (line.toks[first].start, line.toks[last].end);
            let x = &line.text[start..end];
            out.push(Edit {
                start,
                end,
                text: format!("{x}%v, {x}%d"),
            });
        }
    }
    out
}

/// A second round for references copied into new text (the bounds of an
/// allocation repeated for the derivative part): only the element, part
/// and inquiry spellings can occur there.
fn apply_named(lines: &mut [String], split: &BTreeSet<String>) {
    let set: HashSet<String> = split.iter().cloned().collect();
    for l in lines.iter_mut() {
        let line = Line::new(l);
        let mut edits = Vec::new();
        for k in 0..line.toks.len() {
            if line.toks[k].kind != TokKind::Ident {
                continue;
            }
            let name = line.s(k).to_ascii_lowercase();
            if !set.contains(&name) || line.prev(k).is_some_and(|p| line.s(p) == "%") {
                continue;
            }
            if let Some(u) = classify(&line, k, &name, &set, &HashMap::new()) {
                edits.extend(u.edits);
            }
        }
        if edits.is_empty() {
            continue;
        }
        edits.sort_by_key(|e| (e.start, e.end));
        let mut text = String::new();
        let mut at = 0;
        for e in edits {
            if e.start < at {
                continue;
            }
            text.push_str(&l[at..e.start]);
            text.push_str(&e.text);
            at = e.end;
        }
        text.push_str(&l[at..]);
        *l = text;
    }
}

#[cfg(test)]
mod tests;
