//! Namelist groups: `namelist /g/ a, b /h/ c` in a specification part and
//! the I/O statements naming a group (`read(u, nml=g)`, `write(u, g)`).
//!
//! Models read their configuration this way. The statement is copied as
//! it is; a `read` of a group writes each member and a `write` reads each,
//! so the analyses see what the statement does (a member read from a file
//! carries no derivative). A member that becomes active is refused later,
//! by name (`sema`): `type(active)` data in a namelist would change the
//! file format the user's input is written in.

use tree_sitter::Node;

use super::{named_children, FortranParser};
use crate::ast::{Expr, FrontResult, SpecStmt};

impl FortranParser<'_> {
    /// `namelist /g/ a, b /h/ c`: kept as written, its groups remembered.
    pub(super) fn namelist_statement(&self, s: Node, out: &mut Vec<SpecStmt>) -> FrontResult<()> {
        let text = self.text(s);
        let Some(groups) = parse_groups(text) else {
            return self.unsupported(s, "namelist statement of this form");
        };
        let mut known = self.namelists.borrow_mut();
        for (group, members) in &groups {
            known
                .entry(group.clone())
                .or_default()
                .extend(members.iter().cloned());
        }
        out.push(SpecStmt::Namelist {
            groups,
            text: text.to_string(),
            span: self.span(s),
        });
        Ok(())
    }

    /// The members of the namelist group an I/O statement names, if any:
    /// `nml=g`, or `g` in the format position (`read(u, g)`). `Err` for a
    /// group this file does not declare.
    pub(super) fn namelist_of_io(&self, n: Node) -> FrontResult<Option<(String, Vec<Expr>)>> {
        let mut group = None;
        for c in named_children(n) {
            match c.kind() {
                "keyword_argument" => {
                    let kids = named_children(c);
                    if let [name, value] = kids.as_slice() {
                        if self.lower(*name) == "nml" {
                            group = Some((self.lower(*value), *value));
                        }
                    }
                }
                "format_identifier" => {
                    let name = self.lower(c);
                    let inner = named_children(c);
                    let is_name = name
                        .chars()
                        .all(|ch| ch.is_ascii_alphanumeric() || ch == '_')
                        && name.starts_with(|ch: char| ch.is_ascii_alphabetic());
                    if is_name && self.namelists.borrow().contains_key(&name) {
                        group = Some((name, inner.first().copied().unwrap_or(c)));
                    }
                }
                _ => {}
            }
        }
        let Some((name, node)) = group else {
            return Ok(None);
        };
        let Some(members) = self.namelists.borrow().get(&name).cloned() else {
            return self.unsupported(
                node,
                &format!("namelist group '{name}' declared outside this file (declare it in the file whose I/O statements name it)"),
            );
        };
        let span = self.span(node);
        let members = members.into_iter().map(|m| Expr::Name(m, span)).collect();
        Ok(Some((name, members)))
    }
}

/// `namelist /g/ a, b /h/ c` → [(g, [a, b]), (h, [c])], lower case;
/// `None` if the text is not of that form.
fn parse_groups(text: &str) -> Option<Vec<(String, Vec<String>)>> {
    let code: String = text
        .lines()
        .map(|l| l.split('!').next().unwrap_or(""))
        .collect::<Vec<_>>()
        .join(" ")
        .replace('&', " ")
        .to_ascii_lowercase();
    let rest = code.trim().strip_prefix("namelist")?.trim();
    let mut parts = rest.split('/');
    if !parts.next()?.trim().is_empty() {
        return None;
    }
    let mut groups = Vec::new();
    while let Some(name) = parts.next() {
        let name = name.trim();
        let list = parts.next()?;
        let members: Vec<String> = list
            .split(',')
            .map(str::trim)
            .filter(|m| !m.is_empty())
            .map(str::to_string)
            .collect();
        let ident = |w: &str| {
            w.starts_with(|c: char| c.is_ascii_alphabetic())
                && w.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
        };
        if !ident(name) || members.is_empty() || !members.iter().all(|m| ident(m)) {
            return None;
        }
        groups.push((name.to_string(), members));
    }
    (!groups.is_empty()).then_some(groups)
}

#[cfg(test)]
mod tests {
    use super::parse_groups;

    #[test]
    fn groups_with_continuations_and_comments() {
        let g = parse_groups(
            "namelist /model_nml/ kappa, nsteps, & ! physics\n   verbose /io_nml/ path",
        )
        .unwrap();
        assert_eq!(
            g,
            vec![
                (
                    "model_nml".to_string(),
                    vec!["kappa".into(), "nsteps".into(), "verbose".into()]
                ),
                ("io_nml".to_string(), vec!["path".to_string()]),
            ]
        );
        assert!(parse_groups("namelist model_nml kappa").is_none());
        assert!(parse_groups("namelist /g/").is_none());
    }
}
