//! Allocation in the adjoint modes: allocation bounds taped in the forward
//! sweep and replayed in the reverse sweep, so that the reverse sweep finds
//! every array allocated exactly where the forward sweep had it allocated.
//!
//! The booster puts a mirror marker (`mirror:canon:ID`, see
//! docs/ARCHITECTURE.md) in the reverse sweep at the reverse position of
//! every opaque statement. For `allocate`/`deallocate` statements:
//!
//! | where | code |
//! |---|---|
//! | tape section, at `deallocate(a)` | push `lbound`/`ubound` of `a` per dimension and an allocated flag, then the statement |
//! | adjoint section, mirror of `deallocate(a)` | pop the flag and bounds, `allocate(a(l1:u1, ...))` (zeroes `a%d`: `type(active)` initialises it; a dead array has adjoint zero), `a%v = 0` |
//! | adjoint section, mirror of `allocate(a(...))` | `deallocate(a)` (its adjoint has been propagated) |
//! | split mode, end of the tape section | the same push for every allocatable local (Fortran releases it at return) |
//! | split mode, start of the adjoint section | the same pop and re-allocation (the adjoint call starts with it unallocated) |
//!
//! "Split mode" here means sections run apart (`UnitGen::sections_apart`):
//! split mode, and a leaf's template in joint mode, whose caller runs its
//! tape and adjoint sections in separate calls.
//! In joint mode the tape and adjoint sections run in one invocation, so
//! locals are still allocated (with adjoint zero: nothing writes `%d` in
//! the tape section) when the adjoint section starts. A routine reached in
//! a joint reverse sweep re-runs its tape section from its argument
//! checkpoint while arrays it allocated for its caller (dummy arguments,
//! module and `save` variables) are still allocated from the first run.
//! **Joint re-runs** therefore allocate such an active array only when it
//! is not allocated (`if (.not. allocated(a))` around the statement), so
//! values are recomputed in the storage that holds the adjoints
//! accumulated after the call, and the mirror releases it: the first run's
//! `allocate` found it unallocated, or it would have failed. (A user's own
//! guard, `if (.not. allocated(a)) allocate(a(n))` in a set-up routine, is
//! a branch the re-run does not take once the first run allocated; its
//! reversal takes the same arm.) Deallocating such an array in a re-run
//! routine stays refused (the reverse sweep would need it). The routine
//! no unit calls (the top-level routine) is never re-run: its sections
//! replay allocation as split mode does (`UnitGen::call_tree_root`).
//!
//! The pushes go to the integer tape at the statement's own position and
//! the pops sit at its mirror position, so they interleave with the
//! booster's integer pushes in LIFO order.
//!
//! **Kept storage** (adjoint modes and `-m f`, issue 11 part 5). Releasing an active
//! local in the tape section and allocating it again in the adjoint
//! section costs a fresh mapping each time: glibc maps blocks over 32 MB
//! with `mmap` and unmaps them at `deallocate`, so every page faults
//! again in each sweep (glacier, a 66 MB `type(active)` array: 41,000
//! page faults per evaluation, 60 % of the adjoint's time). Instead, the
//! tape section moves a released active local into a `save`d slot of the
//! unit (`call move_alloc(a, oad_keep_a)`, the object left out of the
//! `deallocate`), and the adjoint section's re-allocation takes the slot
//! back when it holds an array of the popped bounds (`move_alloc`, then
//! `a%d = 0`), allocating afresh otherwise (another activation's array,
//! a released slot). Values are the forward sweep's instead of zero: the
//! reverse sweep never reads the values of a dead array. A slot holds at
//! most one array per local between the sweeps (in joint mode, where both
//! sections run in one invocation, the same saves the re-mapping between
//! them); not for dummies, module or `save` variables, nor in the section
//! copies of `plain_clones.rs`. In `-m f` the same happens between one
//! call's `deallocate` and the next call's `allocate` (nothing taped).

use xaif_schema::declarations::Attributes;
use xaif_schema::{Marker, SymbolType};

use super::UnitGen;
use crate::error::Result;
use crate::fortran_text::{parenthesised, tokenize, top_level_split, TokKind};
use crate::template::Section;
use crate::Mode;

/// Integer temporaries of the replay code.
const FLAG: &str = "oad_alloc_flag";
const BOUNDS: &str = "oad_alloc_bnd";
/// Prefix of the slots of kept storage ("Kept storage" above).
const KEEP_PREFIX: &str = "oad_keep_";

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AllocKind {
    Allocate,
    Deallocate,
}

impl AllocKind {
    fn keyword(self) -> &'static str {
        match self {
            AllocKind::Allocate => "allocate",
            AllocKind::Deallocate => "deallocate",
        }
    }
}

/// An `allocate`/`deallocate` statement: its objects in statement order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AllocStmt {
    pub kind: AllocKind,
    pub objects: Vec<AllocObject>,
}

/// One allocate object without its allocation bounds, lower case, blanks
/// removed: `u`, or a component `s%h`, `t(2)%b` (its `root` is `s`, `t`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AllocObject {
    pub designator: String,
    pub root: String,
}

impl AllocObject {
    pub fn is_component(&self) -> bool {
        self.designator.contains('%')
    }
}

/// Parses `allocate(...)`/`deallocate(...)` (label already removed).
pub fn parse_allocation(source: &str) -> Option<AllocStmt> {
    let lower = source.trim().to_ascii_lowercase();
    let (kind, rest) = [AllocKind::Deallocate, AllocKind::Allocate]
        .into_iter()
        .find_map(|k| {
            let rest = lower.strip_prefix(k.keyword())?.trim_start();
            rest.starts_with('(').then_some((k, rest))
        })?;
    let inner = parenthesised(rest)?;
    // `allocate(real(8) :: a(n))`: the objects follow the type spec.
    let inner = match top_level_split(inner, "::").as_slice() {
        [_, objects] => objects.to_string(),
        _ => inner.to_string(),
    };
    let mut objects = Vec::new();
    for item in top_level_split(&inner, ",") {
        let item: String = item.chars().filter(|c| !c.is_whitespace()).collect();
        let root: String = item
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
            .collect();
        // `stat=`, `errmsg=`, `source=`, `mold=`
        if root.is_empty() || item[root.len()..].starts_with('=') {
            continue;
        }
        objects.push(AllocObject {
            designator: without_last_subscripts(&item).to_string(),
            root,
        });
    }
    Some(AllocStmt { kind, objects })
}

/// An allocate object without the bounds of its last part:
/// `s%h(0:n)` → `s%h`, `t(2)%b(n)` → `t(2)%b`.
fn without_last_subscripts(item: &str) -> &str {
    let last = top_level_split(item, "%").pop().unwrap_or(item);
    match last.find('(') {
        Some(open) => &item[..item.len() - last.len() + open],
        None => item,
    }
}

/// The `deallocate` statement `source` without the objects `names` ("" if
/// none is left); `None` (keep nothing) when it has `stat=`/`errmsg=` or
/// an object other than a plain name among them.
fn without_objects(source: &str, names: &[&str]) -> Option<String> {
    if names.is_empty() {
        return None;
    }
    let lower = source.trim().to_ascii_lowercase();
    let rest = lower.strip_prefix("deallocate")?.trim_start();
    let inner = parenthesised(rest)?;
    if !rest[inner.len() + 2..].trim().is_empty() {
        return None;
    }
    let items: Vec<&str> = top_level_split(inner, ",")
        .into_iter()
        .map(str::trim)
        .collect();
    let plain = |i: &str| !i.is_empty() && i.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
    if !items.iter().all(|i| plain(i)) {
        return None;
    }
    let left: Vec<&str> = items.into_iter().filter(|i| !names.contains(i)).collect();
    Some(if left.is_empty() {
        String::new()
    } else {
        format!("deallocate({})", left.join(", "))
    })
}

/// The objects `names` of the `allocate` statement `source`, each with
/// its bounds per dimension (lower bound `1` where none is written), and
/// the statement without them ("" if none is left); `None` (keep nothing)
/// with `stat=`, `source=`, a type spec, or an object that is not a plain
/// name with bounds.
type KeptBounds = Vec<(String, Vec<(String, String)>)>;
fn kept_allocations(source: &str, names: &[&str]) -> Option<(KeptBounds, String)> {
    if names.is_empty() {
        return None;
    }
    let lower = source.trim().to_ascii_lowercase();
    let rest = lower.strip_prefix("allocate")?.trim_start();
    let inner = parenthesised(rest)?;
    if !rest[inner.len() + 2..].trim().is_empty() || top_level_split(inner, "::").len() > 1 {
        return None;
    }
    let mut kept = Vec::new();
    let mut left = Vec::new();
    for item in top_level_split(inner, ",") {
        let item = item.trim();
        let name: String = item
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
            .collect();
        let after = item[name.len()..].trim_start();
        if name.is_empty() || after.starts_with('=') || after.starts_with('%') {
            return None;
        }
        if !names.contains(&name.as_str()) {
            left.push(item.to_string());
            continue;
        }
        let dims = if after.is_empty() {
            Vec::new()
        } else {
            let spec = parenthesised(after)?;
            if !after[spec.len() + 2..].trim().is_empty() {
                return None;
            }
            top_level_split(spec, ",")
                .into_iter()
                .map(|d| match top_level_split(d, ":").as_slice() {
                    [hi] => Some(("1".to_string(), hi.trim().to_string())),
                    [lo, hi] => Some((lo.trim().to_string(), hi.trim().to_string())),
                    _ => None,
                })
                .collect::<Option<Vec<_>>>()?
        };
        kept.push((name, dims));
    }
    let rest = if left.is_empty() {
        String::new()
    } else {
        format!("allocate({})", left.join(", "))
    };
    Some((kept, rest))
}

/// Whether the statement text has an `allocate(`/`deallocate(` anywhere
/// (e.g. inside an opaque construct).
fn mentions_allocation(source: &str) -> bool {
    let toks: Vec<_> = tokenize(source)
        .into_iter()
        .filter(|t| !matches!(t.kind, TokKind::Space | TokKind::Comment))
        .collect();
    toks.windows(2).any(|w| {
        w[0].kind == TokKind::Ident
            && ["allocate", "deallocate"]
                .iter()
                .any(|k| source[w[0].start..w[0].end].eq_ignore_ascii_case(k))
            && &source[w[1].start..w[1].end] == "("
    })
}

/// Where an allocatable object lives, seen from the unit.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Storage {
    /// A local of the unit without `save`: released at return.
    Local,
    /// A dummy argument, a module or host variable, or a `save` local:
    /// its allocation outlives the call.
    Persistent(&'static str),
}

/// An object whose allocation is taped and replayed.
struct Replayed {
    name: String,
    rank: usize,
    active: bool,
}

impl UnitGen<'_, '_> {
    fn adjoint_mode(&self) -> bool {
        matches!(self.env.mode, Mode::AdjointSplit | Mode::AdjointJoint)
    }

    pub(crate) fn is_dummy(&self, name: &str) -> bool {
        let index = self.env.index;
        let args = index
            .replacements_of_unit(&self.unit)
            .and_then(|rl| rl.argument_list.as_ref())
            .or_else(|| {
                index
                    .cfg_of_unit(&self.unit)
                    .and_then(|c| c.argument_list.as_ref())
            });
        args.is_some_and(|a| a.iter().any(|a| a.symbol_id.eq_ignore_ascii_case(name)))
    }

    /// A local of the unit without `save`: Fortran releases (or forgets)
    /// it at return.
    pub(crate) fn is_released_at_return(&self, name: &str) -> bool {
        self.storage(name) == Storage::Local
    }

    fn storage(&self, name: &str) -> Storage {
        if self.is_dummy(name) {
            return Storage::Persistent("dummy argument");
        }
        if self.env.index.symbol(self.scope, name).is_none() {
            return Storage::Persistent("module or host variable");
        }
        let saved = self
            .canon
            .attributes(&self.unit, name)
            .is_some_and(|a| a.save);
        if saved {
            Storage::Persistent("save variable")
        } else {
            Storage::Local
        }
    }

    /// Whether `name` is a local of the unit without `save` (undefined
    /// again at the next invocation).
    pub(crate) fn is_local_variable(&self, name: &str) -> bool {
        self.storage(name) == Storage::Local
    }

    /// The objects of an allocation statement whose allocation is
    /// replayed, in statement order; a named error for an active object
    /// that cannot be.
    fn replayed_objects(&self, stmt: &AllocStmt, m: &Marker) -> Result<Vec<Replayed>> {
        let mut out = Vec::new();
        for object in &stmt.objects {
            let name = &object.designator;
            let Some((_, sym, _)) = self.visible_symbol(name) else {
                if object.is_component() {
                    self.refuse_component_allocation(object, m)?;
                }
                continue;
            };
            // Allocation through a pointer: `pointers.rs`.
            if sym.pointer {
                continue;
            }
            let active = self.is_active(name);
            let replayable = active
                || matches!(
                    sym.type_,
                    SymbolType::Real | SymbolType::Integer | SymbolType::Bool
                );
            if !replayable {
                continue;
            }
            // A component lives as long as the variable it belongs to.
            if let Storage::Persistent(what) = self.storage(&object.root) {
                if self.joint_rerun() {
                    // Allocated in the re-run only if not still allocated
                    // ("Joint re-runs" above, `rerun_guarded`).
                    if active && stmt.kind == AllocKind::Allocate {
                        continue;
                    }
                    if active {
                        return Err(self.env.xaif.unsupported(
                            &format!("annotation=\"{}\"", m.annotation),
                            format!(
                                "unsupported construct in joint adjoint mode (-m rj): {} of the active \
                                 array '{name}', {} (a routine re-run in the reverse sweep would \
                                 find it already released; use -m rs, or a local array)",
                                stmt.kind.keyword(),
                                if object.is_component() {
                                    format!("a component of a {what}")
                                } else {
                                    format!("a {what}")
                                }
                            ),
                        ));
                    }
                    continue;
                }
            }
            out.push(Replayed {
                name: name.clone(),
                rank: sym.shape.rank(),
                active,
            });
        }
        Ok(out)
    }

    /// Joint mode's sections run in one invocation: the tape section is a
    /// re-run in the reverse sweep, except in the routine nobody calls.
    fn joint_rerun(&self) -> bool {
        self.env.mode == Mode::AdjointJoint && !self.sections_apart && !self.call_tree_root
    }

    /// The active objects of an `allocate` that outlive the call (dummies,
    /// module, host and `save` variables) in a joint re-run: the re-run
    /// allocates them only when they are not allocated still, as they are
    /// when the first run allocated them for its caller ("Joint re-runs").
    fn rerun_guarded(&self, stmt: &AllocStmt) -> Vec<String> {
        if !self.joint_rerun() || stmt.kind != AllocKind::Allocate {
            return Vec::new();
        }
        stmt.objects
            .iter()
            .filter(|o| {
                self.visible_symbol(&o.designator)
                    .is_some_and(|(_, sym, _)| !sym.pointer)
                    && self.is_active(&o.designator)
                    && matches!(self.storage(&o.root), Storage::Persistent(_))
            })
            .map(|o| o.designator.clone())
            .collect()
    }

    /// Tape section of a joint re-run, an `allocate` of `guarded` objects:
    /// the statement only if the first of them is not allocated.
    fn guarded_allocate(&mut self, source: &str, guarded: &[String]) -> Result<Option<String>> {
        self.line(format!("if (.not. allocated({})) then", guarded[0]));
        self.indent += 1;
        self.line(source.trim());
        self.indent -= 1;
        self.line("end if");
        Ok(Some(String::new()))
    }

    /// Declares the replay temporaries once per unit.
    fn declare_replay_temps(&mut self) {
        let decl = format!("integer :: {FLAG}, {BOUNDS}(14)");
        if !self.extra_decls.contains(&decl) {
            self.extra_decls.push(decl);
        }
    }

    pub(crate) fn tape_int(&mut self, op: &str, text: String) -> Result<()> {
        match self.inline.expand(op, std::slice::from_ref(&text)) {
            Some(Ok(lines)) => {
                for l in lines {
                    self.line(l);
                }
            }
            _ => self.line(format!("call {op}({text})")),
        }
        Ok(())
    }

    /// Pushes whether `r` is allocated and, if so, its bounds.
    fn push_allocation(&mut self, r: &Replayed) -> Result<()> {
        self.line(format!("if (allocated({})) then", r.name));
        self.indent += 1;
        for k in 1..=r.rank {
            self.tape_int("push_int", format!("lbound({}, {k})", r.name))?;
            self.tape_int("push_int", format!("ubound({}, {k})", r.name))?;
        }
        self.tape_int("push_int", "1".into())?;
        self.indent -= 1;
        self.line("else");
        self.indent += 1;
        self.tape_int("push_int", "0".into())?;
        self.indent -= 1;
        self.line("end if");
        Ok(())
    }

    /// Pops what `push_allocation` pushed and re-allocates with zero
    /// value and adjoint (the latter by the type's default initialisation).
    fn pop_allocation(&mut self, r: &Replayed) -> Result<()> {
        self.declare_replay_temps();
        self.tape_int("pop_int", FLAG.into())?;
        self.line(format!("if ({FLAG} /= 0) then"));
        self.indent += 1;
        for k in (1..=2 * r.rank).rev() {
            self.tape_int("pop_int", format!("{BOUNDS}({k})"))?;
        }
        let dims: Vec<String> = (1..=r.rank)
            .map(|k| format!("{BOUNDS}({}):{BOUNDS}({})", 2 * k - 1, 2 * k))
            .collect();
        let kept = self.keeps(r);
        if kept {
            // The slot's array if it has the popped bounds, else a new one.
            self.declare_kept_storage(&r.name);
            let slot = format!("{KEEP_PREFIX}{}", r.name);
            let differs: Vec<String> = (1..=r.rank)
                .map(|k| {
                    format!(
                        "lbound({slot}, {k}) /= {BOUNDS}({}) .or. ubound({slot}, {k}) /= {BOUNDS}({})",
                        2 * k - 1,
                        2 * k
                    )
                })
                .collect();
            if !differs.is_empty() {
                self.line(format!("if (allocated({slot})) then"));
                self.line(format!(
                    "  if ({}) deallocate({slot})",
                    differs.join(" .or. ")
                ));
                self.line("end if");
            }
            self.line(format!("if (allocated({slot})) then"));
            self.line(format!("  call move_alloc({slot}, {})", r.name));
            self.line(format!("  {}%d = 0", r.name));
            self.line("else");
            self.indent += 1;
        }
        if dims.is_empty() {
            self.line(format!("allocate({})", r.name));
        } else {
            self.line(format!("allocate({}({}))", r.name, dims.join(", ")));
        }
        // `allocate` already zeroes the adjoint (`type(active)`'s default
        // initialisation of `d`): a second pass over a large array costs
        // as much as a sweep over it (glacier: 66 MB per evaluation).
        if r.active {
            self.line(format!("{}%v = 0", r.name));
        }
        if kept {
            self.indent -= 1;
            self.line("end if");
        }
        self.indent -= 1;
        self.line("end if");
        Ok(())
    }

    /// Forward code of an opaque statement in the adjoint modes: at a
    /// `deallocate` in the tape section, the bounds are pushed first.
    /// Refuses active (de)allocation it cannot replay.
    /// Returns the statement to emit instead of `source` when objects
    /// were moved to their kept storage ("" for none left).
    pub(crate) fn allocation_forward(
        &mut self,
        source: &str,
        m: &Marker,
    ) -> Result<Option<String>> {
        if self.env.mode == Mode::Tangent {
            return self.tangent_kept(source);
        }
        if !self.adjoint_mode() {
            return Ok(None);
        }
        let Some(stmt) = parse_allocation(source) else {
            self.refuse_nested_allocation(source, m)?;
            return Ok(None);
        };
        let replayed = self.replayed_objects(&stmt, m)?;
        let guarded = self.rerun_guarded(&stmt);
        if !guarded.is_empty() && !replayed.is_empty() {
            return Err(self.env.xaif.unsupported(
                &format!("annotation=\"{}\"", m.annotation),
                format!(
                    "unsupported construct in joint adjoint mode (-m rj): one allocate of \
                     '{}', which outlives the call, and of '{}', a local: write two statements",
                    guarded[0], replayed[0].name
                ),
            ));
        }
        if self.section != Section::Tape {
            return Ok(None);
        }
        if !guarded.is_empty() {
            return self.guarded_allocate(source, &guarded);
        }
        if stmt.kind == AllocKind::Allocate {
            return self.allocate_from_kept(source, &replayed);
        }
        for r in &replayed {
            self.push_allocation(r)?;
        }
        self.release_to_kept(source, &replayed)
    }

    /// `deallocate`: the objects with a slot move into it instead; the
    /// statement left for the others ("" for none).
    fn release_to_kept(&mut self, source: &str, objects: &[Replayed]) -> Result<Option<String>> {
        let kept: Vec<&str> = objects
            .iter()
            .filter(|r| self.keeps(r))
            .map(|r| r.name.as_str())
            .collect();
        let Some(rest) = without_objects(source, &kept) else {
            return Ok(None);
        };
        for name in kept {
            self.declare_kept_storage(name);
            self.line(format!("call move_alloc({name}, {KEEP_PREFIX}{name})"));
        }
        Ok(Some(rest))
    }

    /// Tangent mode (`-m f`): the same kept storage between one call's
    /// `deallocate` and the next call's `allocate` of an active local, so
    /// that a big array is not mapped afresh at every evaluation (glacier:
    /// two 33 MB arrays per call). Nothing is taped.
    fn tangent_kept(&mut self, source: &str) -> Result<Option<String>> {
        let Some(stmt) = parse_allocation(source) else {
            return Ok(None);
        };
        let objects: Vec<Replayed> = stmt
            .objects
            .iter()
            .filter(|o| !o.is_component())
            .filter_map(|o| {
                let (_, sym, _) = self.visible_symbol(&o.designator)?;
                (!sym.pointer).then(|| Replayed {
                    name: o.designator.clone(),
                    rank: sym.shape.rank(),
                    active: self.is_active(&o.designator),
                })
            })
            .collect();
        match stmt.kind {
            AllocKind::Allocate => self.allocate_from_kept(source, &objects),
            AllocKind::Deallocate => self.release_to_kept(source, &objects),
        }
    }

    /// Tape section, `allocate`: an object whose slot holds an array of
    /// the requested bounds takes it (adjoint zeroed: the last reverse
    /// sweep wrote it) instead of a new mapping ("Kept storage").
    fn allocate_from_kept(
        &mut self,
        source: &str,
        replayed: &[Replayed],
    ) -> Result<Option<String>> {
        let names: Vec<&str> = replayed
            .iter()
            .filter(|r| self.keeps(r))
            .map(|r| r.name.as_str())
            .collect();
        let Some((bounds, rest)) = kept_allocations(source, &names) else {
            return Ok(None);
        };
        let simple = |e: &str| self.passive_bound(e);
        if !bounds
            .iter()
            .all(|(_, dims)| dims.iter().all(|(lo, hi)| simple(lo) && simple(hi)))
        {
            return Ok(None);
        }
        for (name, dims) in &bounds {
            self.declare_kept_storage(name);
            let slot = format!("{KEEP_PREFIX}{name}");
            let differs: Vec<String> = dims
                .iter()
                .enumerate()
                .map(|(k, (lo, hi))| {
                    format!(
                        "lbound({slot}, {0}) /= ({lo}) .or. ubound({slot}, {0}) /= ({hi})",
                        k + 1
                    )
                })
                .collect();
            if !differs.is_empty() {
                self.line(format!("if (allocated({slot})) then"));
                self.line(format!(
                    "  if ({}) deallocate({slot})",
                    differs.join(" .or. ")
                ));
                self.line("end if");
            }
            let shape: Vec<String> = dims.iter().map(|(lo, hi)| format!("{lo}:{hi}")).collect();
            self.line(format!("if (allocated({slot})) then"));
            self.line(format!("  call move_alloc({slot}, {name})"));
            self.line(format!("  {name}%d = 0"));
            self.line("else");
            if shape.is_empty() {
                self.line(format!("  allocate({name})"));
            } else {
                self.line(format!("  allocate({name}({}))", shape.join(", ")));
            }
            self.line("end if");
        }
        Ok(Some(rest))
    }

    /// A bound expression that can be evaluated twice as written: names
    /// of passive variables, integer literals, `+ - * /` and parentheses.
    fn passive_bound(&self, e: &str) -> bool {
        let mut chars = e.chars().peekable();
        while let Some(c) = chars.next() {
            if c.is_ascii_alphabetic() {
                let mut name = c.to_string();
                while let Some(&d) = chars.peek() {
                    if d.is_ascii_alphanumeric() || d == '_' {
                        name.push(d);
                        chars.next();
                    } else {
                        break;
                    }
                }
                while chars.peek() == Some(&' ') {
                    chars.next();
                }
                if chars.peek() == Some(&'(') || self.is_active(&name) {
                    return false;
                }
            } else if !(c.is_ascii_digit() || " +-*/()".contains(c)) {
                return false;
            }
        }
        true
    }

    /// Whether `r`'s storage is kept between the sweeps ("Kept storage").
    fn keeps(&self, r: &Replayed) -> bool {
        // Components (`s%h`) live in their variable: no slot of their own.
        self.keeps_storage
            && !r.name.contains('%')
            && r.active
            && self.storage(&r.name) == Storage::Local
            && KEEP_PREFIX.len() + r.name.len() <= 63
    }

    /// Declares the `save`d slot of an active local, once.
    fn declare_kept_storage(&mut self, name: &str) {
        let rank = self
            .env
            .index
            .symbol(self.scope, name)
            .map_or(0, |s| s.shape.rank());
        let dims = if rank == 0 {
            String::new()
        } else {
            format!("({})", vec![":"; rank].join(","))
        };
        let decl = format!("type(active), allocatable, save :: {KEEP_PREFIX}{name}{dims}");
        if !self.extra_decls.contains(&decl) {
            self.extra_decls.push(decl);
        }
    }

    /// Reverse code at the mirror of an opaque statement: undoes an
    /// allocation, replays a deallocation; nothing for other statements.
    pub(crate) fn allocation_mirror(&mut self, source: &str, m: &Marker) -> Result<()> {
        if !self.adjoint_mode() {
            return Ok(());
        }
        let Some(stmt) = parse_allocation(source) else {
            return Ok(());
        };
        let replayed = self.replayed_objects(&stmt, m)?;
        let guarded = self.rerun_guarded(&stmt);
        if !guarded.is_empty() {
            // Before the first run's `allocate` they were not allocated
            // (or it would have failed): released, whether this re-run
            // allocated them or found them allocated still.
            for g in &guarded {
                self.line(format!("if (allocated({g})) deallocate({g})"));
            }
        }
        for r in replayed.iter().rev() {
            match stmt.kind {
                // Kept for the next tape section's `allocate`.
                AllocKind::Allocate if self.keeps(r) => {
                    self.declare_kept_storage(&r.name);
                    self.line(format!("call move_alloc({0}, {KEEP_PREFIX}{0})", r.name));
                }
                AllocKind::Allocate => self.line(format!("deallocate({})", r.name)),
                AllocKind::Deallocate => self.pop_allocation(r)?,
            }
        }
        // Local pointers into re-allocated storage (`pointer_frames.rs`).
        if stmt.kind == AllocKind::Deallocate && !replayed.is_empty() {
            self.refresh_frame_pointers();
        }
        Ok(())
    }

    /// A component without a component path of its own (`t(2)%b`, an
    /// allocatable component of an element of an array of derived types,
    /// or one of derived type) cannot be replayed: refused by name when
    /// its variable's type has active components, rather than leaving the
    /// adjoint to read released storage.
    fn refuse_component_allocation(&self, object: &AllocObject, m: &Marker) -> Result<()> {
        let derived_active = self
            .env
            .index
            .resolve(self.scope, &object.root)
            .is_some_and(|s| self.env.index.has_active_components(s));
        if !derived_active {
            return Ok(());
        }
        Err(self.env.xaif.unsupported(
            &format!("annotation=\"{}\"", m.annotation),
            format!(
                "unsupported construct in adjoint mode: allocate/deallocate of '{}', a component \
                 of '{}' (whose type has active components) that is not a real component of a \
                 scalar variable: the reverse sweep cannot replay it",
                object.designator, object.root
            ),
        ))
    }

    /// An `allocate`/`deallocate` of an active array inside an opaque
    /// construct (`if (...) allocate(...)` kept whole) has no mirror the
    /// back end can build.
    fn refuse_nested_allocation(&self, source: &str, m: &Marker) -> Result<()> {
        if !mentions_allocation(source) {
            return Ok(());
        }
        let lower: String = source
            .to_ascii_lowercase()
            .chars()
            .filter(|c| !c.is_whitespace())
            .collect();
        // Component designators (`s%h`) are kept whole: their paths are
        // the active symbols.
        let active = lower
            .split(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == '%'))
            .filter(|w| !w.is_empty() && *w != "allocate" && *w != "deallocate")
            .find(|w| self.is_active(w));
        match active {
            Some(name) => Err(self.env.xaif.unsupported(
                &format!("annotation=\"{}\"", m.annotation),
                format!(
                    "unsupported construct in adjoint mode: (de)allocation of the active array \
                     '{name}' inside an opaque statement (write the allocate/deallocate as a \
                     statement of its own)"
                ),
            )),
            None => Ok(()),
        }
    }

    /// The allocatable array locals of the unit (released at return).
    fn allocatable_locals(&self) -> Vec<Replayed> {
        let mut names: Vec<String> = self
            .canon
            .declared
            .get(&self.unit)
            .map(|s| s.iter().cloned().collect())
            .unwrap_or_default();
        names.sort();
        let allocatable = |a: Option<&Attributes>| a.is_some_and(|a| a.allocatable);
        let mut names: Vec<String> = names
            .into_iter()
            .filter(|n| allocatable(self.canon.attributes(&self.unit, n)))
            .collect();
        // Allocatable components of local derived-type variables go with
        // their variable.
        let mut components: Vec<String> = self
            .env
            .index
            .symbols_of(self.scope)
            .into_iter()
            .filter_map(|sym| {
                let id = sym.symbol_id.as_str().to_ascii_lowercase();
                let (type_name, leaf) =
                    sym.annotation.strip_prefix("component:")?.split_once('%')?;
                let root = id.split(['%', '(']).next()?;
                let declared = self
                    .canon
                    .declared
                    .get(&self.unit)
                    .is_some_and(|d| d.contains(root));
                (declared
                    && !id.contains('(')
                    && allocatable(self.canon.declarations.component(type_name, leaf)))
                .then_some(id)
            })
            .collect();
        components.sort();
        names.extend(components);
        names
            .into_iter()
            .filter(|n| self.storage(n.split('%').next().unwrap_or(n)) == Storage::Local)
            .filter_map(|n| {
                let sym = self.env.index.symbol(self.scope, &n)?;
                let active = self.is_active(&n);
                let replayable = active
                    || matches!(
                        sym.type_,
                        SymbolType::Real | SymbolType::Integer | SymbolType::Bool
                    );
                replayable.then(|| Replayed {
                    rank: sym.shape.rank(),
                    name: n,
                    active,
                })
            })
            .collect()
    }

    /// Split mode, end of the tape section: tape the allocation of the
    /// locals Fortran releases at return.
    pub(crate) fn tape_live_locals(&mut self) -> Result<()> {
        if !self.sections_apart {
            return Ok(());
        }
        for r in self.allocatable_locals() {
            self.push_allocation(&r)?;
            // Fortran releases it at return: keep its storage instead.
            if self.keeps(&r) {
                self.declare_kept_storage(&r.name);
                self.line(format!(
                    "if (allocated({0})) call move_alloc({0}, {KEEP_PREFIX}{0})",
                    r.name
                ));
            }
        }
        Ok(())
    }

    /// Split mode, start of the adjoint section: re-allocate those locals
    /// (adjoint zero: they are dead at return).
    pub(crate) fn restore_live_locals(&mut self) -> Result<()> {
        if !self.sections_apart {
            return Ok(());
        }
        for r in self.allocatable_locals().iter().rev() {
            self.line(format!("if (allocated({0})) deallocate({0})", r.name));
            self.pop_allocation(r)?;
        }
        Ok(())
    }

    /// Generates the code of one template section.
    pub(crate) fn section_code(
        &mut self,
        section: Section,
        r: &xaif_schema::Replacement,
        what: &str,
    ) -> Result<()> {
        self.section = section;
        self.collect_frame_sites(&r.vertices)?;
        // The integer tape is LIFO: the frame pointers' shadows, pushed
        // before the allocations at the end of the tape section, are popped
        // after them.
        self.switches_mode = switches_mode(&r.vertices);
        if section == Section::Adjoint {
            self.restore_passive_scalars(&r.vertices)?;
            self.restore_live_locals()?;
            self.restore_live_frame_pointers(&r.vertices)?;
            self.restore_live_pointers(&r.vertices);
            self.replay_pointer_associations(&r.vertices)?;
        }
        if section == Section::Tape {
            self.start_frame_pointers(&r.vertices)?;
        }
        self.control_flow(&r.vertices, &r.edges, r.structured, what)?;
        if section == Section::Tape {
            self.tape_live_frame_pointers(&r.vertices)?;
            self.tape_live_locals()?;
            self.tape_live_pointers(&r.vertices);
            // Last pushed, first popped at the start of the adjoint section.
            self.tape_passive_scalars(&r.vertices)?;
        }
        self.section = Section::Other;
        self.switches_mode = false;
        Ok(())
    }
}

/// Whether a section's code sets the mode itself (a checkpointed loop's
/// `oad_mode_*` actions): its calls may then run in another sweep's mode.
fn switches_mode(vertices: &[xaif_schema::ControlFlowVertex]) -> bool {
    vertices.iter().any(|v| match v {
        xaif_schema::ControlFlowVertex::BasicBlock(b) => b.elements.iter().any(|e| {
            matches!(e, xaif_schema::BasicBlockElement::InlinableSubroutineCall(c)
                if c.subroutine_name.trim().to_ascii_lowercase().starts_with("oad_mode_"))
        }),
        _ => false,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn objects(s: &str) -> (AllocKind, Vec<String>) {
        let a = parse_allocation(s).unwrap();
        (
            a.kind,
            a.objects.into_iter().map(|o| o.designator).collect(),
        )
    }

    #[test]
    fn kept_objects_leave_the_deallocate() {
        assert_eq!(
            without_objects("deallocate(h, q, hn)", &["h", "hn"]),
            Some("deallocate(q)".to_string())
        );
        assert_eq!(
            without_objects("DEALLOCATE(h)", &["h"]),
            Some(String::new())
        );
        assert_eq!(without_objects("deallocate(h, stat=ierr)", &["h"]), None);
        assert_eq!(without_objects("deallocate(s%h, h)", &["h"]), None);
        assert_eq!(without_objects("deallocate(h)", &[]), None);
    }

    #[test]
    fn kept_objects_leave_the_allocate() {
        let (kept, rest) =
            kept_allocations("allocate(h(0:n + 1, m), q(n), w(3))", &["h", "w"]).unwrap();
        assert_eq!(rest, "allocate(q(n))");
        assert_eq!(
            kept,
            vec![
                (
                    "h".to_string(),
                    vec![
                        ("0".to_string(), "n + 1".to_string()),
                        ("1".to_string(), "m".to_string())
                    ]
                ),
                ("w".to_string(), vec![("1".to_string(), "3".to_string())]),
            ]
        );
        assert_eq!(kept_allocations("allocate(h(n), stat=ierr)", &["h"]), None);
        assert_eq!(kept_allocations("allocate(real(8) :: h(n))", &["h"]), None);
        assert_eq!(kept_allocations("allocate(h(n))", &[]), None);
    }

    #[test]
    fn objects_of_allocation_statements() {
        let some = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        assert_eq!(
            objects("allocate(u(0:n + 1, 0:n + 1), unew(n, n), stat=ierr)"),
            (AllocKind::Allocate, some(&["u", "unew"]))
        );
        assert_eq!(
            objects("DEALLOCATE (H, q)"),
            (AllocKind::Deallocate, some(&["h", "q"]))
        );
        assert_eq!(
            objects("allocate(real(8) :: w(size(x, 1)), source=x)"),
            (AllocKind::Allocate, some(&["w"]))
        );
        assert_eq!(
            objects("allocate(s%a(n), t(2)%b(3), c(n), s % grid % h(0:n+1, m))"),
            (
                AllocKind::Allocate,
                some(&["s%a", "t(2)%b", "c", "s%grid%h"])
            )
        );
        let roots: Vec<String> = parse_allocation("deallocate(t(2)%b, s%a)")
            .unwrap()
            .objects
            .into_iter()
            .map(|o| o.root)
            .collect();
        assert_eq!(roots, some(&["t", "s"]));
        assert!(parse_allocation("allocated = 1").is_none());
        assert!(parse_allocation("print *, 'allocate(x)'").is_none());
    }

    #[test]
    fn allocation_inside_a_construct_is_noticed() {
        assert!(mentions_allocation("if (n > 0) allocate(a(n))"));
        assert!(mentions_allocation("if (n > 0) DEALLOCATE (a)"));
        assert!(!mentions_allocation("print *, allocated(a)"));
    }
}
