//! What one statement defines and reads, seen from inside its unit: the
//! written definitions, plus may-definitions of the locations that may
//! alias them, plus the bound side effects of calls.

use super::alias::Alias;
use super::ir::{Def, LocationId, LocationKind, Program, Stmt, UnitId, Use};
use super::side_effects::SideEffects;

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
            callee, actuals, ..
        } => {
            let kills = side_effects.call_kills(program, callee, actuals);
            (
                side_effects
                    .call_defs(program, callee, actuals)
                    .into_iter()
                    .map(|l| {
                        if kills.contains(&l) {
                            Def::whole(l)
                        } else {
                            Def::partial(l)
                        }
                    })
                    .collect(),
                side_effects
                    .call_uses(program, callee, actuals)
                    .into_iter()
                    .map(Use::diff)
                    .collect(),
            )
        }
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
