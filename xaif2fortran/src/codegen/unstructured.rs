//! Any control flow graph to labelled statements and gotos. Every vertex
//! gets a label; loops are lowered to explicit initialisation, test and
//! update: a ForLoop is entered at its initialisation, while the edge back
//! from its EndLoop runs the update and jumps to the test. A PostLoop runs
//! its body first and tests when its EndLoop comes back.

use std::collections::{HashMap, HashSet};

use xaif_schema::{BasicBlockElement, ControlFlowVertex};

use super::cfg_view::CfgView;
use super::UnitGen;
use crate::error::Result;

/// A generated line: a statement, a label definition or a jump.
enum Item {
    /// A statement to indent.
    Stmt(String),
    /// A statement generated already indented.
    Indented(String),
    Label(u32),
    Goto(u32),
}

impl UnitGen<'_, '_> {
    pub(crate) fn unstructured(&mut self, view: &CfgView, entry: &str, what: &str) -> Result<()> {
        let order = layout(view, entry);
        let mut label: HashMap<&str, u32> = HashMap::new();
        let mut test_label: HashMap<&str, u32> = HashMap::new();
        for id in &order {
            label.insert(id, self.fresh_label());
            if matches!(
                view.by_id[id],
                ControlFlowVertex::ForLoop(_) | ControlFlowVertex::PostLoop(_)
            ) {
                test_label.insert(id, self.fresh_label());
            }
        }
        let target = |id: &str| -> Result<u32> {
            label.get(id).copied().ok_or_else(|| {
                self.env.xaif.error(
                    what,
                    format!("control flow edge to unknown vertex '{id}' in {what}"),
                )
            })
        };
        let succ = |id: &str| -> Result<u32> {
            match view.single_successor(id) {
                Some(t) => target(t),
                None => Err(self.env.xaif.error(
                    &format!("vertex_id=\"{id}\""),
                    format!("control flow vertex '{id}' of {what} needs exactly one successor"),
                )),
            }
        };
        let on = |id: &str, value: i64| -> Result<u32> {
            match view.successor_on(id, value) {
                Some(t) => target(t),
                None => Err(self.env.xaif.error(
                    &format!("vertex_id=\"{id}\""),
                    format!("control flow vertex '{id}' of {what} has no edge with condition value {value}"),
                )),
            }
        };
        let mut items: Vec<Item> = Vec::new();
        let base_indent = self.indent;
        for id in &order {
            items.push(Item::Label(label[id]));
            let v = view.by_id[id];
            // Statements are generated into self.lines, then moved to items.
            let mark = self.lines.len();
            match v {
                ControlFlowVertex::Entry(_)
                | ControlFlowVertex::EndBranch(_)
                | ControlFlowVertex::Label(_)
                | ControlFlowVertex::Goto(_) => {
                    items.push(Item::Goto(succ(id)?));
                }
                ControlFlowVertex::Exit(_) => {}
                ControlFlowVertex::BasicBlock(b) => {
                    self.block_elements(&b.elements)?;
                    self.drain_into(mark, &mut items);
                    items.push(Item::Goto(succ(id)?));
                }
                ControlFlowVertex::If(c) => {
                    let cond = self.condition_text(c.condition.as_ref(), id)?;
                    items.push(Item::Stmt(format!("if ({cond}) goto {}", on(id, 1)?)));
                    items.push(Item::Goto(on(id, 0)?));
                }
                ControlFlowVertex::PreLoop(c) => {
                    let cond = self.condition_text(c.condition.as_ref(), id)?;
                    items.push(Item::Stmt(format!("if ({cond}) goto {}", on(id, 1)?)));
                    items.push(Item::Goto(on(id, 0)?));
                }
                ControlFlowVertex::ForLoop(f) => {
                    if let Some(init) = &f.initialization {
                        self.block_elements(&[BasicBlockElement::Assignment(init.clone())])?;
                        self.drain_into(mark, &mut items);
                    }
                    items.push(Item::Label(test_label[id]));
                    let cond = self.condition_text(f.condition.as_ref(), id)?;
                    items.push(Item::Stmt(format!("if ({cond}) goto {}", on(id, 1)?)));
                    items.push(Item::Goto(on(id, 0)?));
                }
                ControlFlowVertex::PostLoop(c) => {
                    items.push(Item::Goto(on(id, 1)?));
                    items.push(Item::Label(test_label[id]));
                    let cond = self.condition_text(c.condition.as_ref(), id)?;
                    items.push(Item::Stmt(format!("if ({cond}) goto {}", on(id, 1)?)));
                    items.push(Item::Goto(on(id, 0)?));
                }
                ControlFlowVertex::Branch(c) => {
                    let cond = self.condition_text(c.condition.as_ref(), id)?;
                    items.push(Item::Stmt(format!("select case ({cond})")));
                    for e in view.out_edges(id) {
                        let case = if e.has_condition_value {
                            format!("case ({})", e.condition_value)
                        } else {
                            "case default".to_string()
                        };
                        items.push(Item::Stmt(case));
                        items.push(Item::Stmt(format!("  goto {}", target(&e.target)?)));
                    }
                    items.push(Item::Stmt("end select".into()));
                    // Without a default edge a value matching no case would
                    // fall through to whatever vertex is laid out next.
                    if view.out_edges(id).iter().all(|e| e.has_condition_value) {
                        return Err(self.env.xaif.error(
                            &format!("vertex_id=\"{id}\""),
                            format!(
                                "Branch '{id}' of {what} has no default edge (needed in an unstructured graph)"
                            ),
                        ));
                    }
                }
                ControlFlowVertex::EndLoop(_) => {
                    let Some(back) = view.single_successor(id) else {
                        return Err(self.env.xaif.error(
                            &format!("vertex_id=\"{id}\""),
                            format!("EndLoop '{id}' of {what} needs exactly one successor"),
                        ));
                    };
                    match view.by_id.get(back) {
                        Some(ControlFlowVertex::ForLoop(f)) => {
                            if let Some(update) = &f.update {
                                self.block_elements(&[BasicBlockElement::Assignment(
                                    update.clone(),
                                )])?;
                                self.drain_into(mark, &mut items);
                            }
                            items.push(Item::Goto(test_label[back]));
                        }
                        Some(ControlFlowVertex::PostLoop(_)) => {
                            items.push(Item::Goto(test_label[back]))
                        }
                        _ => items.push(Item::Goto(target(back)?)),
                    }
                }
            }
        }
        // Drop jumps to the very next label and labels nobody jumps to.
        let mut keep = vec![true; items.len()];
        for k in 0..items.len() {
            if let Item::Goto(l) = items[k] {
                let mut j = k + 1;
                while j < items.len() {
                    match items[j] {
                        Item::Label(m) if m == l => {
                            keep[k] = false;
                            break;
                        }
                        Item::Label(_) => j += 1,
                        _ => break,
                    }
                }
            }
        }
        let mut used: HashSet<u32> = HashSet::new();
        for (k, it) in items.iter().enumerate() {
            match it {
                Item::Goto(l) if keep[k] => {
                    used.insert(*l);
                }
                Item::Stmt(s) => {
                    if let Some(pos) = s.find("goto ") {
                        if let Ok(l) = s[pos + 5..].trim().parse() {
                            used.insert(l);
                        }
                    }
                }
                _ => {}
            }
        }
        let pad = "  ".repeat(base_indent);
        for (k, it) in items.into_iter().enumerate() {
            match it {
                Item::Indented(s) => self.lines.push(s),
                Item::Stmt(s) => self.line(s),
                Item::Label(l) if used.contains(&l) => {
                    self.lines.push(format!("{pad}{l} continue"))
                }
                Item::Goto(l) if keep[k] => self.line(format!("goto {l}")),
                _ => {}
            }
        }
        Ok(())
    }

    /// Moves the lines generated since `mark` into `items`.
    fn drain_into(&mut self, mark: usize, items: &mut Vec<Item>) {
        for l in self.lines.drain(mark..) {
            items.push(Item::Indented(l));
        }
    }
}

/// Vertex order for the goto form: depth first from the entry, taking
/// out-edges in document order (so fall-through follows the first edge),
/// with the Exit last. Unreachable vertices are left out.
fn layout<'c>(view: &CfgView<'c>, entry: &str) -> Vec<&'c str> {
    let mut order = Vec::new();
    let mut seen: HashSet<&str> = HashSet::new();
    let mut stack: Vec<&'c str> = Vec::new();
    if let Some(v) = view.by_id.get(entry) {
        stack.push(v.vertex_id());
    }
    let mut exits = Vec::new();
    while let Some(id) = stack.pop() {
        if !seen.insert(id) {
            continue;
        }
        if matches!(view.by_id.get(id), Some(ControlFlowVertex::Exit(_))) {
            exits.push(id);
        } else {
            order.push(id);
        }
        for e in view.out_edges(id).iter().rev() {
            if let Some(t) = view.by_id.get(e.target.as_str()) {
                if !seen.contains(t.vertex_id()) {
                    stack.push(t.vertex_id());
                }
            }
        }
    }
    order.extend(exits);
    order
}
