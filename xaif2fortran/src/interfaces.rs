//! Interface bodies. An interface body in the canonical source describes
//! a subroutine that the XAIF differentiates elsewhere; its dummies must
//! be declared as the subroutine's are (active where the subroutine's
//! formals are), whatever activity the interface's own scope carries.

use std::collections::{HashMap, HashSet};

use xaif_schema::declarations::UnitKind;

use crate::canon::{CanonItem, CanonSource};
use crate::symbols::XaifIndex;

/// For every interface body whose subroutine has a control flow graph or
/// replacement list: (unit, dummy name) → whether the dummy is active. An
/// interface body is a subroutine unit without a body; its name and
/// dummies are those of its header (`P.decl`'s `unit` record).
pub fn interface_activity(
    index: &XaifIndex,
    canon: &CanonSource,
) -> HashMap<(String, String), bool> {
    let with_body: HashSet<&str> = canon
        .items
        .iter()
        .filter_map(|i| match i {
            CanonItem::Body { unit, .. } => Some(unit.as_str()),
            _ => None,
        })
        .collect();
    let mut out = HashMap::new();
    for tag in &canon.units {
        if with_body.contains(tag.as_str()) {
            continue;
        }
        let Some(header) = canon.declarations.unit(tag) else {
            continue;
        };
        if header.kind != UnitKind::Subroutine {
            continue;
        }
        let Some(formals) = index.formal_activity(&header.name) else {
            continue;
        };
        for (k, d) in header.dummies.iter().enumerate() {
            if let Some((_, active)) = formals.iter().find(|(p, _)| *p == k as u64 + 1) {
                out.insert((tag.clone(), d.clone()), *active);
            }
        }
    }
    out
}
