//! Component paths of derived types (docs/xaif.md, "Derived types"): the
//! front end gives every real component reachable from a derived-type
//! variable a flattened symbol, `p%pos`, `cells(1)%h`, `s%grid%dx`, whose
//! subscripts are those of the parts in order, each array part before the
//! leaf carrying its rank in parentheses. This module prints such a
//! reference with the subscripts given back to their parts.

/// The parts of a component path with the number of subscripts each
/// takes (`cells(1)%h` → `[(cells, 1), (h, rest)]`; the leaf takes what is
/// left).
fn parts(name: &str) -> Vec<(&str, usize)> {
    name.split('%')
        .map(|p| match p.split_once('(') {
            Some((n, r)) => (n, r.trim_end_matches(')').parse().unwrap_or(0)),
            None => (p, 0),
        })
        .collect()
}

/// The rank of each part as the name gives it (the leaf's is 0: it takes
/// whatever subscripts are left).
pub fn part_ranks(symbol_id: &str) -> Vec<usize> {
    parts(symbol_id).iter().map(|p| p.1).collect()
}

/// Whether a symbol id is a component path.
pub fn is_component_path(symbol_id: &str) -> bool {
    symbol_id.contains('%')
}

/// The component path without the ranks of its parts: `cells%h`, the form
/// it has in Fortran text when no part is subscripted.
pub fn bare_path(symbol_id: &str) -> String {
    parts(symbol_id)
        .iter()
        .map(|(n, _)| *n)
        .collect::<Vec<_>>()
        .join("%")
}

/// The Fortran text of a component-path reference with its (printed)
/// subscripts: `cells(1)%h` with `[i, j]` is `cells(i)%h(j)`.
pub fn path_text(symbol_id: &str, subscripts: Option<&[String]>) -> String {
    let parts = parts(symbol_id);
    let mut out = String::new();
    let mut rest: &[String] = subscripts.unwrap_or(&[]);
    for (k, (part, rank)) in parts.iter().enumerate() {
        if k > 0 {
            out.push('%');
        }
        out.push_str(part);
        let take = if k + 1 == parts.len() {
            rest.len()
        } else {
            (*rank).min(rest.len())
        };
        if take > 0 {
            out.push('(');
            out.push_str(&rest[..take].join(", "));
            out.push(')');
        }
        rest = &rest[take..];
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn subscripts_go_back_to_their_parts() {
        let s = |v: &[&str]| v.iter().map(|x| x.to_string()).collect::<Vec<_>>();
        assert_eq!(
            path_text("cells(1)%h", Some(&s(&["i", "j"]))),
            "cells(i)%h(j)"
        );
        assert_eq!(
            path_text("cells(1)%geo%dx", Some(&s(&["i"]))),
            "cells(i)%geo%dx"
        );
        assert_eq!(path_text("p%pos", Some(&s(&["2"]))), "p%pos(2)");
        assert_eq!(path_text("s%grid%dx", None), "s%grid%dx");
        assert_eq!(bare_path("a(2)%b(1)%c"), "a%b%c");
    }
}
