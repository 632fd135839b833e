//! What one statement defines and reads, seen from inside its unit: the
//! written definitions, plus may-definitions of the locations that may
//! alias them, plus the bound side effects of calls.
//!
//! A call kills a caller location only where the callee certainly
//! overwrites a dummy that stands for all of it; an element actual with
//! constant subscripts bound to a scalar dummy the callee always assigns
//! kills that element only; any other binding (a section, an element
//! passed to an array dummy, an array passed to an explicit-shape or
//! assumed-size dummy) is a partial definition that kills nothing.

use super::alias::Alias;
use super::ir::{ActualPart, Callee, Def, LocationId, LocationKind, Program, Stmt, UnitId, Use};
use super::side_effects::{Reach, SideEffects};

/// The definitions and uses of a statement, aliasing and calls resolved.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct StmtEffects {
    pub defs: Vec<Def>,
    pub uses: Vec<Use>,
}

/// Locations of `unit` that may share storage with `loc`.
fn visible_partners<'a>(
    program: &'a Program,
    alias: &'a Alias,
    unit: UnitId,
    loc: LocationId,
) -> impl Iterator<Item = LocationId> + 'a {
    alias.partners_of(loc).iter().copied().filter(move |p| {
        match program.location(*p).map(|l| l.kind) {
            Some(LocationKind::Global) => true,
            Some(LocationKind::Dummy { unit: u, .. }) => u == unit,
            _ => false,
        }
    })
}

pub fn stmt_effects(
    program: &Program,
    side_effects: &SideEffects,
    alias: &Alias,
    unit: UnitId,
    stmt: &Stmt,
) -> StmtEffects {
    let (written, uses): (Vec<Def>, Vec<Use>) = match stmt {
        Stmt::Assign { def, uses, .. } => (vec![*def], uses.clone()),
        Stmt::Opaque { defs, uses, .. } => (
            defs.clone(),
            uses.iter().map(|l| Use::passive(*l)).collect(),
        ),
        Stmt::Call {
            callee,
            actuals,
            parts,
            ..
        } => call_effects(program, side_effects, callee, actuals, parts),
    };
    let mut defs = written.clone();
    for d in &written {
        for p in visible_partners(program, alias, unit, d.loc) {
            if !defs.iter().any(|x| x.loc == p) {
                defs.push(Def::partial(p));
            }
        }
    }
    StmtEffects { defs, uses }
}

/// The definitions and reads of a call in its caller, from the callee's
/// bound side effects: one definition per caller location the call may
/// define, one use per location it may read.
fn call_effects(
    program: &Program,
    side_effects: &SideEffects,
    callee: &Callee,
    actuals: &[Option<LocationId>],
    parts: &[ActualPart],
) -> (Vec<Def>, Vec<Use>) {
    let may = side_effects.call_mod_reach(program, callee, actuals, parts);
    let must = side_effects.call_must_mod(program, callee, actuals, parts);
    let defs = distinct(&may)
        .into_iter()
        .map(|l| {
            let must_l: Vec<Reach> = reaches(&must, l).collect();
            if must_l.contains(&Reach::Whole) {
                return Def::whole(l);
            }
            // One element, certainly overwritten, and nothing else of `l`
            // bound: kill that element (a second binding of `l`, e.g. the
            // same array also passed whole or as a global, may define
            // other elements, so the definition is then partial).
            match (must_l.as_slice(), reaches(&may, l).count()) {
                ([Reach::Element(e)], 1) => Def::element(l, Some(*e)),
                _ => Def::partial(l),
            }
        })
        .collect();
    let reads = side_effects.call_read_reach(program, callee, actuals, parts);
    let uses = distinct(&reads)
        .into_iter()
        .map(|l| {
            // A read through scalar dummies of one constant element only
            // sees the definitions that may reach that element.
            let mut r = reaches(&reads, l);
            let element = match r.next() {
                Some(Reach::Element(e)) if r.all(|x| x == Reach::Element(e)) => Some(e),
                _ => None,
            };
            Use {
                element,
                ..Use::diff(l)
            }
        })
        .collect();
    (defs, uses)
}

/// The caller locations of `bound`, sorted, without duplicates.
fn distinct(bound: &[(LocationId, Reach)]) -> Vec<LocationId> {
    let mut locs: Vec<LocationId> = bound.iter().map(|(l, _)| *l).collect();
    locs.sort();
    locs.dedup();
    locs
}

/// The reaches of the bindings of `loc` in `bound`.
fn reaches(bound: &[(LocationId, Reach)], loc: LocationId) -> impl Iterator<Item = Reach> + '_ {
    bound
        .iter()
        .filter(move |(l, _)| *l == loc)
        .map(|(_, r)| *r)
}
