//! Cheaper inlined tape pushes in the taping sweep.
//!
//! A push expanded from its inline definition tests the stack's capacity,
//! stores and increments the stack pointer: three statements and a
//! possible call per value, and the possible call makes the compiler
//! reload the stack and its pointer after every push. Pushes to one stack
//! within a *run* (a stretch of a basic block without calls, opaque
//! statements or other tape operations, so no callee pushes in between
//! and the LIFO order is unchanged) share one test reserving room for all
//! of them, store at `ptr`, `ptr + 1`, ... and increment the pointer once,
//! after the last one. When the body of a counted `do` loop has no calls
//! and no inner loops, room for all its iterations (the most pushes any
//! path through the body makes, times the trip count, which Fortran fixes
//! at loop entry) is reserved before the loop, and the body stores
//! without any test. Measured effect: docs/benchmarks.md (2026-11-22).
//!
//! Only pushes whose definition is the built-in one are fused
//! (`InlineDefs::fusable_push`); the others are expanded call by call.

use std::collections::HashMap;

use xaif_schema::{BasicBlockElement, ControlFlowVertex};

use super::cfg_view::CfgView;
use super::UnitGen;
use crate::inline::InlineDefs;

/// Where a push sits in its run.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct PushSlot {
    /// The `OAD_tape` stack (`oad_dt`, `oad_it`, `oad_lt`).
    pub stack: &'static str,
    /// Position of this push among the run's pushes to the same stack.
    pub index: usize,
    /// Number of pushes to that stack in the run.
    pub count: usize,
}

/// The stack a block element pushes to, if it is a fusable push.
fn pushed_stack(e: &BasicBlockElement, inline: &InlineDefs) -> Option<&'static str> {
    match e {
        BasicBlockElement::InlinableSubroutineCall(c) if c.arguments.len() == 1 => {
            inline.fusable_push(&c.subroutine_name)
        }
        _ => None,
    }
}

/// Whether a block element ends every run: a call (the callee may push),
/// an opaque statement (it may call, or read the tape pointers), any tape
/// operation other than a fusable push (a pop, a checkpoint, a user
/// definition).
fn ends_runs(e: &BasicBlockElement, inline: &InlineDefs) -> bool {
    match e {
        BasicBlockElement::Assignment(_) | BasicBlockElement::DerivativePropagator(_) => false,
        BasicBlockElement::InlinableSubroutineCall(_) => pushed_stack(e, inline).is_none(),
        BasicBlockElement::SubroutineCall(_) | BasicBlockElement::Marker(_) => true,
    }
}

/// For each element of a basic block, its slot if it is a fusable push.
pub(crate) fn plan_runs(
    elements: &[BasicBlockElement],
    inline: &InlineDefs,
) -> Vec<Option<PushSlot>> {
    let mut slots: Vec<Option<PushSlot>> = vec![None; elements.len()];
    let mut start = 0;
    while start < elements.len() {
        let end = (start..elements.len())
            .find(|&k| ends_runs(&elements[k], inline))
            .unwrap_or(elements.len());
        let run: Vec<(usize, &'static str)> = (start..end)
            .filter_map(|k| pushed_stack(&elements[k], inline).map(|s| (k, s)))
            .collect();
        for &(k, stack) in &run {
            let same = run.iter().filter(|(_, s)| *s == stack);
            slots[k] = Some(PushSlot {
                stack,
                index: same.clone().take_while(|(j, _)| *j < k).count(),
                count: same.count(),
            });
        }
        start = end + 1;
    }
    slots
}

/// The room a counted loop can reserve before it starts.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct LoopReservation {
    /// Per stack, the most pushes one iteration can make.
    pub counts: Vec<(&'static str, usize)>,
    /// The body's basic blocks, whose pushes then need no test.
    pub blocks: Vec<String>,
}

/// Pushes per stack along the worst path from a vertex to the end of
/// the loop body; `None` if the body is not reservable from there.
type PathPushes = Option<Vec<(&'static str, usize)>>;

/// What a counted loop (vertex `loop_id`, body starting at `body`) may
/// reserve: its body must be acyclic — basic blocks, if / select case
/// branches and their joins, ending at the loop's EndLoop — and free of
/// run ends (calls, opaque statements, other tape operations), and it
/// must push something. The count per stack is the maximum over the
/// paths through the body, so an iteration never pushes more than was
/// reserved for it.
pub(crate) fn loop_body_pushes(
    view: &CfgView,
    body: &str,
    loop_id: &str,
    inline: &InlineDefs,
) -> Option<LoopReservation> {
    let end_loop = view.vertices.iter().find(|v| {
        matches!(v, ControlFlowVertex::EndLoop(_))
            && view.single_successor(v.vertex_id()) == Some(loop_id)
    })?;
    let mut memo: HashMap<String, PathPushes> = HashMap::new();
    let mut blocks = Vec::new();
    let counts = worst_path(
        view,
        body,
        end_loop.vertex_id(),
        inline,
        &mut memo,
        &mut blocks,
    )?;
    let counts: Vec<_> = counts.into_iter().filter(|&(_, n)| n > 0).collect();
    (!counts.is_empty()).then_some(LoopReservation { counts, blocks })
}

/// Per-stack maximum of pushes from `id` to `end` (memoised; a vertex
/// being visited again before it is done means a cycle: not reservable).
fn worst_path(
    view: &CfgView,
    id: &str,
    end: &str,
    inline: &InlineDefs,
    memo: &mut HashMap<String, PathPushes>,
    blocks: &mut Vec<String>,
) -> PathPushes {
    if id == end {
        return Some(Vec::new());
    }
    if let Some(done) = memo.get(id) {
        return done.clone();
    }
    memo.insert(id.to_string(), None);
    let mut own: Vec<(&'static str, usize)> = Vec::new();
    match view.by_id.get(id)? {
        ControlFlowVertex::BasicBlock(b) => {
            if b.elements.iter().any(|e| ends_runs(e, inline)) {
                return None;
            }
            for stack in b.elements.iter().filter_map(|e| pushed_stack(e, inline)) {
                add(&mut own, stack, 1);
            }
            blocks.push(id.to_string());
        }
        ControlFlowVertex::If(_)
        | ControlFlowVertex::Branch(_)
        | ControlFlowVertex::EndBranch(_) => {}
        _ => return None,
    }
    let mut worst: Vec<(&'static str, usize)> = Vec::new();
    let edges = view.out_edges(id);
    if edges.is_empty() {
        return None;
    }
    for e in edges {
        for (stack, n) in worst_path(view, &e.target, end, inline, memo, blocks)? {
            match worst.iter_mut().find(|(s, _)| *s == stack) {
                Some((_, m)) => *m = (*m).max(n),
                None => worst.push((stack, n)),
            }
        }
    }
    for (stack, n) in own {
        add(&mut worst, stack, n);
    }
    memo.insert(id.to_string(), Some(worst.clone()));
    Some(worst)
}

fn add(counts: &mut Vec<(&'static str, usize)>, stack: &'static str, n: usize) {
    match counts.iter_mut().find(|(s, _)| *s == stack) {
        Some((_, m)) => *m += n,
        None => counts.push((stack, n)),
    }
}

/// `text` as an operand of `+`/`-`: bare if it is a name or a literal.
fn operand(text: &str) -> String {
    if text
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '%')
    {
        text.to_string()
    } else {
        format!("({text})")
    }
}

/// The trip count of `do v = lo, hi[, step]` as an `integer(8)`
/// expression (Fortran: `max(0, (hi - lo + step) / step)`).
pub fn trip_count(lo: &str, hi: &str, step: &str) -> String {
    let (lo, hi) = (operand(lo), operand(hi));
    if step == "1" {
        format!("max(0_8, int({hi} - {lo} + 1, 8))")
    } else {
        let step = operand(step);
        format!("max(0_8, int(({hi} - {lo} + {step})/{step}, 8))")
    }
}

impl UnitGen<'_, '_> {
    /// One test reserving room for `extra` more entries than the next
    /// push needs: `if (ptr + extra > sz) call grow_to(ptr + extra)`.
    pub(crate) fn reserve_pushes(&mut self, stack: &str, extra: &str) {
        let last = format!("{stack}_ptr + {extra}");
        self.line(format!(
            "if ({last} > {stack}_sz) call {stack}_grow_to({last})"
        ));
    }

    /// Reserves room for every iteration of a counted loop whose body
    /// pushes `counts` values per stack (written just before the `do`).
    pub(crate) fn reserve_loop_pushes(&mut self, counts: &[(&'static str, usize)], trips: &str) {
        for &(stack, n) in counts {
            self.reserve_pushes(stack, &format!("{n}_8*{trips} - 1"));
        }
    }

    /// A push in a run: the run's test before its first push (unless the
    /// enclosing loop reserved the room), the store at its offset, the
    /// increment after its last push.
    pub(crate) fn fused_push(&mut self, slot: PushSlot, value: &str, reserved: bool) {
        let PushSlot {
            stack,
            index,
            count,
        } = slot;
        if index == 0 && !reserved {
            self.reserve_pushes(stack, &(count - 1).to_string());
        }
        if index == 0 {
            self.line(format!("{stack}({stack}_ptr) = {value}"));
        } else {
            self.line(format!("{stack}({stack}_ptr + {index}) = {value}"));
        }
        if index + 1 == count {
            self.line(format!("{stack}_ptr = {stack}_ptr + {count}"));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use xaif_schema::{
        Argument, ArgumentValue, Constant, ConstantType, InlinableSubroutineCall, Marker,
    };

    fn tape_op(name: &str) -> BasicBlockElement {
        BasicBlockElement::InlinableSubroutineCall(InlinableSubroutineCall {
            subroutine_name: name.into(),
            statement_id: Default::default(),
            arguments: vec![Argument {
                position: 1,
                annotation: Default::default(),
                value: ArgumentValue::Constant(Constant {
                    vertex_id: "1".into(),
                    annotation: Default::default(),
                    type_: ConstantType::Integer,
                    fe_type: Default::default(),
                    value: "1".into(),
                }),
            }],
        })
    }

    fn slot(stack: &'static str, index: usize, count: usize) -> Option<PushSlot> {
        Some(PushSlot {
            stack,
            index,
            count,
        })
    }

    #[test]
    fn runs_are_per_stack_and_end_at_opaque_statements_and_pops() {
        let d = InlineDefs::builtin();
        let marker = BasicBlockElement::Marker(Marker::default());
        let elements = [
            tape_op("push_real"),
            tape_op("push_int"),
            tape_op("push_real"),
            marker,
            tape_op("push_real"),
            tape_op("pop_real"),
            tape_op("push_real"),
            tape_op("push_bool"),
            tape_op("push_real"),
        ];
        assert_eq!(
            plan_runs(&elements, &d),
            vec![
                slot("oad_dt", 0, 2),
                slot("oad_it", 0, 1),
                slot("oad_dt", 1, 2),
                None,
                slot("oad_dt", 0, 1),
                None,
                slot("oad_dt", 0, 2),
                slot("oad_lt", 0, 1),
                slot("oad_dt", 1, 2),
            ]
        );
    }

    #[test]
    fn trip_counts() {
        assert_eq!(trip_count("1", "n", "1"), "max(0_8, int(n - 1 + 1, 8))");
        assert_eq!(
            trip_count("i + 1", "n - 1", "-2"),
            "max(0_8, int(((n - 1) - (i + 1) + (-2))/(-2), 8))"
        );
    }
}
