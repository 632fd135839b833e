//! Interface bodies. An interface body in the canonical source describes
//! a subroutine that the XAIF differentiates elsewhere; its dummies must
//! be declared as the subroutine's are (active where the subroutine's
//! formals are), whatever activity the interface's own scope carries.

use std::collections::HashMap;

use crate::canon::{join_statement, CanonItem, CanonSource};
use crate::symbols::XaifIndex;

/// `subroutine name(a, b)` (with prefixes such as `recursive`): the name
/// and the dummy names, lower case.
fn subroutine_signature(header: &str) -> Option<(String, Vec<String>)> {
    let lower = header.to_ascii_lowercase();
    let at = lower.find("subroutine ")?;
    let rest = lower[at + "subroutine ".len()..].trim();
    let (name, args) = match rest.find('(') {
        Some(p) => (
            rest[..p].trim(),
            rest[p + 1..].trim_end().trim_end_matches(')'),
        ),
        None => (rest, ""),
    };
    let dummies = args
        .split(',')
        .map(|a| a.trim().to_string())
        .filter(|a| !a.is_empty())
        .collect();
    Some((name.to_string(), dummies))
}

/// For every interface body whose subroutine has a control flow graph or
/// replacement list: (unit, dummy name) → whether the dummy is active.
pub fn interface_activity(
    index: &XaifIndex,
    canon: &CanonSource,
) -> HashMap<(String, String), bool> {
    let with_body: std::collections::HashSet<&str> = canon
        .items
        .iter()
        .filter_map(|i| match i {
            CanonItem::Body { unit, .. } => Some(unit.as_str()),
            _ => None,
        })
        .collect();
    let mut out = HashMap::new();
    for item in &canon.items {
        let CanonItem::UnitHeader { tag, lines } = item else {
            continue;
        };
        if with_body.contains(tag.as_str()) {
            continue;
        }
        let texts: Vec<&str> = lines.iter().map(|&i| canon.lines[i].as_str()).collect();
        let Some((name, dummies)) = subroutine_signature(&join_statement(&texts)) else {
            continue;
        };
        let Some(formals) = index.formal_activity(&name) else {
            continue;
        };
        for (k, d) in dummies.iter().enumerate() {
            if let Some((_, active)) = formals.iter().find(|(p, _)| *p == k as u64 + 1) {
                out.insert((tag.clone(), d.clone()), *active);
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn signatures() {
        assert_eq!(
            subroutine_signature("    recursive subroutine Norm2sq(v, r)"),
            Some(("norm2sq".into(), vec!["v".into(), "r".into()]))
        );
        assert_eq!(subroutine_signature("module m"), None);
    }
}
