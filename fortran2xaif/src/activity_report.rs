//! The activity analysis explained (`--activity P.act`): for every
//! variable of every routine, whether it is declared active and the facts
//! behind it (varied, useful, both at one point, a seed). Format and
//! reader in `xaif_schema::activity_report`; `openad explore` shows it.

use xaif_schema::activity_report::{ActivityFacts, ActivityReport, UnitActivity, VariableActivity};

use crate::analysis::ir::Seeds;
use crate::analysis::Results;
use crate::ast::UnitKind;
use crate::lower::Lowered;
use crate::sema::Program;

/// The report for the routines of `prog` (module variables under their
/// module's name), variables in declaration order; canonicaliser
/// temporaries and named constants are left out.
pub fn describe(
    prog: &Program,
    lowered: &Lowered,
    seeds: &Seeds,
    results: &Results,
) -> ActivityReport {
    let a = &results.activity;
    let mut units = Vec::new();
    for (u, unit) in prog.units.iter().enumerate() {
        let routine = matches!(unit.ast.kind, UnitKind::Subroutine | UnitKind::Function);
        if unit.interface_of.is_some() || !(routine || unit.ast.kind == UnitKind::Module) {
            continue;
        }
        let mut variables = Vec::new();
        for (s, symbol) in unit.symbols.iter().enumerate() {
            if symbol.parameter || symbol.temp || symbol.external {
                continue;
            }
            let Some(l) = lowered.locs.get(&(u, s)) else {
                continue;
            };
            let i = l.index();
            let facts = ActivityFacts {
                varied: a.varied.contains(i),
                useful: a.useful.contains(i),
                together: a.flow_active.contains(i),
                seed: seeds.independents.contains(l) || seeds.dependents.contains(l),
                conservative: a.conservative,
            };
            variables.push(VariableActivity {
                name: symbol.name.clone(),
                type_name: crate::interface::type_name(prog, u, symbol),
                active: a.conservative || a.declared_active.contains(i),
                facts,
            });
        }
        if !variables.is_empty() {
            units.push(UnitActivity {
                unit: unit.ast.name.clone(),
                variables,
            });
        }
    }
    ActivityReport { units }
}
