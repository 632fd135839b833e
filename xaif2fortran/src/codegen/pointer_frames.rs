//! Local pointers re-associated among sections of their routine's own data
//! (`pointer:frame:NAME`, docs/xaif.md): `row => a(:, j)` in a loop,
//! `p => x(k:k+m)`, `p => null()`. Their targets may be locals or dummies,
//! which the adjoint call of a split reversal need not find at the same
//! address, so the sweeps record the association symbolically: which of
//! the pointer's assignments made it (its site number, the
//! canonical statement id; 0 before the first)
//! and the values of that assignment's subscripts, in the integer shadow
//! `oad_pa_NAME`, `oad_pv_NAME(:)`.
//!
//! | where | code |
//! |---|---|
//! | tape section, start | `oad_pa_p = 0` |
//! | tape section, before site `i` | push the shadow (integer tape), `oad_pa_p = i`, `oad_pv_p(j) =` each subscript part, then the statement |
//! | adjoint section, mirror of site `i` | pop the shadow, make the association it names again (`select case (oad_pa_p)`) |
//! | sections apart, end of the tape / start of the adjoint section | push / pop the shadow and make the association again |

use xaif_schema::{ControlFlowVertex, Marker};

use super::pointers::pointer_fields;
use super::{Site, UnitGen};
use crate::error::Result;
use crate::fortran_text::add_value_suffix_with;
use crate::fortran_text::{parenthesised, top_level_split};
use crate::markers::POINTER_FRAME;

impl Site {
    fn parts(&self) -> impl Iterator<Item = &String> {
        self.items.iter().flatten().flatten()
    }
}

/// Parses `NAME => target` into the target's base and subscript parts.
fn parse_site(id: &str, text: &str, name: &str) -> Option<Site> {
    let text = text.trim().trim_start_matches(|c: char| c.is_ascii_digit());
    let (lhs, rhs) = text.split_once("=>")?;
    if !lhs.trim().eq_ignore_ascii_case(name) {
        return None;
    }
    let rhs = rhs.trim();
    if rhs.replace(' ', "").eq_ignore_ascii_case("null()") {
        return Some(Site {
            id: id.to_string(),
            base: None,
            items: Vec::new(),
        });
    }
    let Some(open) = rhs.find('(') else {
        let plain = rhs
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '%');
        return plain.then(|| Site {
            id: id.to_string(),
            base: Some(rhs.to_string()),
            items: Vec::new(),
        });
    };
    let base = rhs[..open].trim();
    let inner = parenthesised(&rhs[open..])?;
    let after = rhs[open + inner.len() + 2..].trim();
    // The base may be a component path (`s%h(:, k)`, `s%grid%h(:, k)`),
    // subscripted only in its last part.
    if !after.is_empty()
        || !base
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '%')
    {
        return None;
    }
    let items = top_level_split(inner, ",")
        .into_iter()
        .map(|item| {
            top_level_split(item, ":")
                .into_iter()
                .map(|p| Some(p.trim().to_string()).filter(|p| !p.is_empty()))
                .collect()
        })
        .collect();
    Some(Site {
        id: id.to_string(),
        base: Some(base.to_string()),
        items,
    })
}

impl UnitGen<'_, '_> {
    /// The frame pointers of a section and their sites, by name, sorted;
    /// kept in `frame_sites` for the section's markers.
    pub(crate) fn collect_frame_sites(&mut self, vertices: &[ControlFlowVertex]) -> Result<()> {
        self.frame_sites = self.frame_pointers(vertices)?;
        Ok(())
    }

    fn frame_pointers(&self, vertices: &[ControlFlowVertex]) -> Result<Vec<(String, Vec<Site>)>> {
        let mut out: Vec<(String, Vec<Site>)> = Vec::new();
        for (id, field) in pointer_fields(vertices) {
            let Some(name) = field.strip_prefix(POINTER_FRAME) else {
                continue;
            };
            let name = name.trim().to_ascii_lowercase();
            let Some(stmt) = self.canon.stmts.get(id.as_str()) else {
                continue;
            };
            let Some(site) =
                parse_site(&id, &stmt.text, &name).filter(|_| id.parse::<u64>().is_ok())
            else {
                return Err(self.env.xaif.unsupported(
                    &format!("canon:{id}"),
                    format!("unsupported construct in the adjoint modes (-m rs, -m rj): pointer assignment of '{name}' the adjoint sweep cannot make again (write it as {name} => variable(subscripts))"),
                ));
            };
            match out.iter_mut().find(|(n, _)| *n == name) {
                Some((_, sites)) => {
                    if !sites.iter().any(|s| s.id == site.id) {
                        sites.push(site);
                    }
                }
                None => out.push((name, vec![site])),
            }
        }
        for (_, sites) in &mut out {
            sites.sort_by(|a, b| a.id.cmp(&b.id));
        }
        out.sort_by(|a, b| a.0.cmp(&b.0));
        Ok(out)
    }

    /// Declares the shadow of `name` (`parts` subscript values).
    fn declare_shadow(&mut self, name: &str, parts: usize) {
        let decl = format!("integer :: oad_pa_{name}, oad_pv_{name}({})", parts.max(1));
        if !self.extra_decls.contains(&decl) {
            self.extra_decls.push(decl);
        }
    }

    fn push_shadow(&mut self, name: &str, parts: usize) -> Result<()> {
        self.tape_int("push_int", format!("oad_pa_{name}"))?;
        for j in 1..=parts.max(1) {
            self.tape_int("push_int", format!("oad_pv_{name}({j})"))?;
        }
        Ok(())
    }

    /// Pops the shadow and makes the association it names.
    fn pop_shadow(&mut self, name: &str, sites: &[Site]) -> Result<()> {
        let parts = max_parts(sites);
        for j in (1..=parts.max(1)).rev() {
            self.tape_int("pop_int", format!("oad_pv_{name}({j})"))?;
        }
        self.tape_int("pop_int", format!("oad_pa_{name}"))?;
        self.associate_from_shadow(name, sites);
        Ok(())
    }

    /// Reverse sweep, after storage was allocated again (the mirror of a
    /// `deallocate`): the frame pointers associate with it again, from
    /// their shadows (what they were associated with at that point of the
    /// forward sweep).
    pub(crate) fn refresh_frame_pointers(&mut self) {
        for (name, sites) in self.frame_sites.clone() {
            self.associate_from_shadow(&name, &sites);
        }
    }

    /// Makes the association the shadow of `name` names; nullified when
    /// it names an allocatable that is not allocated (yet: the reverse
    /// sweep re-allocates it further on, `refresh_frame_pointers`).
    fn associate_from_shadow(&mut self, name: &str, sites: &[Site]) {
        self.line(format!("select case (oad_pa_{name})"));
        for site in sites {
            self.line(format!("case ({})", site.id));
            self.indent += 1;
            let text = match &site.base {
                None => format!("nullify({name})"),
                Some(base) => {
                    let mut j = 0;
                    let items: Vec<String> = site
                        .items
                        .iter()
                        .map(|item| {
                            item.iter()
                                .map(|p| match p {
                                    Some(_) => {
                                        j += 1;
                                        format!("oad_pv_{name}({j})")
                                    }
                                    None => String::new(),
                                })
                                .collect::<Vec<_>>()
                                .join(":")
                        })
                        .collect();
                    let target = if items.is_empty() {
                        base.clone()
                    } else {
                        format!("{base}({})", items.join(", "))
                    };
                    let text = format!("{name} => {target}");
                    let text = add_value_suffix_with(&text, &|n| self.is_active(n), &|chain| {
                        self.env.index.is_active_chain(self.scope, chain)
                    });
                    if self.is_allocatable(base) {
                        format!(
                            "if (allocated({base})) then\n{}\nelse\nnullify({name})\nend if",
                            text.trim()
                        )
                    } else {
                        text
                    }
                }
            };
            for l in text.lines() {
                let l = l.trim();
                if l.starts_with("else") || l.starts_with("end if") {
                    self.indent -= 1;
                }
                self.line(l);
                if l.starts_with("if (") || l.starts_with("else") {
                    self.indent += 1;
                }
            }
            self.indent -= 1;
        }
        self.line("case default");
        self.indent += 1;
        self.line(format!("nullify({name})"));
        self.indent -= 1;
        self.line("end select");
    }

    /// Whether variable `name`, as this unit sees it, is allocatable.
    fn is_allocatable(&self, name: &str) -> bool {
        let Some((scope, _, remote)) = self.visible_symbol(name) else {
            return false;
        };
        let unit = self
            .env
            .index
            .unit_of_scope(scope)
            .unwrap_or(&self.unit)
            .to_string();
        self.canon
            .attributes(&unit, &remote)
            .is_some_and(|a| a.allocatable)
    }

    /// Tape section, before the pointer assignment `source` of frame
    /// pointer `name`: pushes the shadow and records this site.
    pub(crate) fn frame_pointer_forward(&mut self, name: &str, m: &Marker) -> Result<()> {
        let (sites, id) = self.site_of(name, m);
        let parts = max_parts(&sites);
        self.declare_shadow(name, parts);
        self.push_shadow(name, parts)?;
        let Some(k) = sites.iter().position(|s| s.id == id) else {
            return Ok(());
        };
        self.line(format!("oad_pa_{name} = {id}"));
        let values: Vec<String> = sites[k].parts().cloned().collect();
        for (j, v) in values.iter().enumerate() {
            self.line(format!("oad_pv_{name}({}) = {v}", j + 1));
        }
        Ok(())
    }

    /// Adjoint section, at the mirror of a site: the association before it.
    pub(crate) fn frame_pointer_mirror(&mut self, name: &str, m: &Marker) -> Result<()> {
        let (sites, _) = self.site_of(name, m);
        self.declare_shadow(name, max_parts(&sites));
        self.pop_shadow(name, &sites)
    }

    /// The sites of `name` in this section and the canonical id of `m`.
    fn site_of(&self, name: &str, m: &Marker) -> (Vec<Site>, String) {
        let annotation = m
            .annotation
            .strip_prefix(crate::markers::MIRROR_PREFIX)
            .unwrap_or(&m.annotation);
        let (canon, _) = crate::markers::split_annotation(annotation);
        let id = canon
            .strip_prefix(crate::markers::CANON_PREFIX)
            .unwrap_or(canon)
            .trim()
            .to_string();
        let sites = self
            .frame_sites
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, s)| s.clone())
            .unwrap_or_default();
        (sites, id)
    }

    /// Start of the tape section: no association recorded yet.
    pub(crate) fn start_frame_pointers(&mut self, vertices: &[ControlFlowVertex]) -> Result<()> {
        for (name, sites) in self.frame_pointers(vertices)? {
            self.declare_shadow(&name, max_parts(&sites));
            self.line(format!("oad_pa_{name} = 0"));
            self.line(format!("oad_pv_{name} = 0"));
        }
        Ok(())
    }

    /// Sections apart, end of the tape section: the shadows, for the
    /// adjoint call.
    pub(crate) fn tape_live_frame_pointers(
        &mut self,
        vertices: &[ControlFlowVertex],
    ) -> Result<()> {
        if !self.sections_apart {
            return Ok(());
        }
        for (name, sites) in self.frame_pointers(vertices)? {
            self.push_shadow(&name, max_parts(&sites))?;
        }
        Ok(())
    }

    /// Sections apart, start of the adjoint section: pops them (reverse
    /// order) and makes the associations again.
    pub(crate) fn restore_live_frame_pointers(
        &mut self,
        vertices: &[ControlFlowVertex],
    ) -> Result<()> {
        if !self.sections_apart {
            return Ok(());
        }
        for (name, sites) in self.frame_pointers(vertices)?.into_iter().rev() {
            self.declare_shadow(&name, max_parts(&sites));
            self.pop_shadow(&name, &sites)?;
        }
        Ok(())
    }
}

fn max_parts(sites: &[Site]) -> usize {
    sites.iter().map(|s| s.parts().count()).max().unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sites_split_into_base_and_subscript_parts() {
        let s = parse_site("s1", "row => a(:, j)", "row").unwrap();
        assert_eq!(s.base.as_deref(), Some("a"));
        assert_eq!(s.items, vec![vec![None, None], vec![Some("j".to_string())]]);
        let s = parse_site("s2", "p => x(k:k + m:2)", "p").unwrap();
        assert_eq!(s.parts().count(), 3);
        assert!(parse_site("s3", "p => null( )", "p")
            .unwrap()
            .base
            .is_none());
        assert_eq!(parse_site("s4", "p => w", "p").unwrap().items.len(), 0);
        // A component path, subscripted in its last part only.
        let s = parse_site("s5", "p => t%c(2:3)", "p").unwrap();
        assert_eq!(s.base.as_deref(), Some("t%c"));
        assert_eq!(s.parts().count(), 2);
        assert!(parse_site("s5", "p => a(i)%c(2:3)", "p").is_none());
        assert!(parse_site("s6", "q => x", "p").is_none());
    }
}
