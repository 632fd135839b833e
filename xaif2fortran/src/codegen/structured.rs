//! Structured control flow graphs to nested Fortran: if / select case /
//! do / do while, following the edge conventions of docs/ARCHITECTURE.md
//! (condition value 1 = true branch or loop body, 0 = false branch or loop
//! exit; branches join in an EndBranch; loop bodies end in an EndLoop with
//! an edge back to the loop).

use xaif_schema::{ControlFlowVertex, ExpressionVertex, ForLoop, SymbolType};

use super::cfg_view::CfgView;
use super::{LoopCtx, UnitGen};
use crate::error::Diagnostic;
use crate::expr::{plain_symbol_name, root_and_args};

/// Why structured emission stopped.
pub enum Fallback {
    /// A real error in the input.
    Diagnostic(Diagnostic),
    /// The graph does not nest; lower it with gotos instead.
    NotNested,
}

impl From<Diagnostic> for Fallback {
    fn from(d: Diagnostic) -> Self {
        Fallback::Diagnostic(d)
    }
}

type Flow<T> = std::result::Result<T, Fallback>;

/// Where a region of the graph stopped.
#[derive(Debug, Clone, PartialEq)]
enum Stop {
    Exit,
    /// At an EndBranch or EndLoop (its id).
    Join(String),
    /// After a jump (`exit`, `cycle`, `return`): control does not fall
    /// out of the region.
    Jumped,
}

impl UnitGen<'_, '_> {
    pub(crate) fn structured(&mut self, view: &CfgView, entry: &str) -> Flow<()> {
        self.loops.clear();
        self.emitted_blocks.clear();
        self.reserved_blocks.clear();
        match self.region(view, entry, 0)? {
            Stop::Exit | Stop::Jumped => Ok(()),
            Stop::Join(_) => Err(Fallback::NotNested),
        }
    }

    /// If `cur` is where an enclosing loop's `exit` or `cycle` goes, emits
    /// the jump and returns true.
    fn loop_jump(&mut self, cur: &str) -> Flow<bool> {
        let n = self.loops.len();
        for k in (0..n).rev() {
            let is_exit = self.loops[k].exit_target == cur;
            let is_cycle = self.loops[k].end_loop == cur;
            if !is_exit && !is_cycle {
                continue;
            }
            if is_cycle && !self.loops[k].cycle_ok {
                return Err(Fallback::NotNested);
            }
            let word = if is_exit { "exit" } else { "cycle" };
            if k + 1 == n {
                self.line(word);
            } else {
                let name = match &self.loops[k].name {
                    Some(name) => name.clone(),
                    None => {
                        let name = format!("oad_loop{}", self.fresh_label());
                        self.loops[k].name = Some(name.clone());
                        name
                    }
                };
                self.line(format!("{word} {name}"));
            }
            return Ok(true);
        }
        Ok(false)
    }

    /// Emits vertices from `start` until an Exit, EndBranch or EndLoop, or
    /// a jump out of the region.
    fn region(&mut self, view: &CfgView, start: &str, depth: usize) -> Flow<Stop> {
        if depth > 500 || self.region_budget == 0 {
            return Err(Fallback::NotNested);
        }
        self.region_budget -= 1;
        let mut cur = start.to_string();
        let mut steps = 0;
        loop {
            steps += 1;
            if steps > view.vertices.len() + 1 {
                return Err(Fallback::NotNested);
            }
            let v = *view.by_id.get(cur.as_str()).ok_or(Fallback::NotNested)?;
            // Reaching a loop's exit target or (from inside a branch) its
            // EndLoop is an exit / cycle; the natural end of a loop body is
            // handled by the loop itself (depth of the body region).
            let at_body_end = self
                .loops
                .last()
                .is_some_and(|l| l.end_loop == cur && depth == self.body_depth());
            if !at_body_end && self.loop_jump(&cur)? {
                return Ok(Stop::Jumped);
            }
            let next = |id: &str| {
                view.single_successor(id)
                    .map(str::to_string)
                    .ok_or(Fallback::NotNested)
            };
            match v {
                // A Goto is an edge; a Label a place edges meet: where they
                // lead is decided by the vertices after them (exit / cycle
                // targets are recognised above).
                ControlFlowVertex::Entry(_)
                | ControlFlowVertex::Goto(_)
                | ControlFlowVertex::Label(_) => cur = next(&cur)?,
                ControlFlowVertex::BasicBlock(b) => {
                    // Reaching a block twice means paths that never join:
                    // leave it to the goto form rather than copy code.
                    if !self.emitted_blocks.insert(cur.clone()) {
                        return Err(Fallback::NotNested);
                    }
                    let reserved = self.reserved_blocks.contains(&cur);
                    self.block_elements_in(&b.elements, reserved)?;
                    cur = next(&cur)?;
                }
                ControlFlowVertex::Exit(_) if depth == 0 => return Ok(Stop::Exit),
                ControlFlowVertex::Exit(_) => {
                    // An early return; not inside a template section, whose
                    // epilogue must run.
                    if !self.allow_return {
                        return Err(Fallback::NotNested);
                    }
                    self.line("return");
                    return Ok(Stop::Jumped);
                }
                ControlFlowVertex::EndBranch(_) | ControlFlowVertex::EndLoop(_) => {
                    return Ok(Stop::Join(cur));
                }
                ControlFlowVertex::If(c) => {
                    let t = view.successor_on(&cur, 1).ok_or(Fallback::NotNested)?;
                    let f = view.successor_on(&cur, 0).ok_or(Fallback::NotNested)?;
                    let cond = self.condition_text(c.condition.as_ref(), &cur)?;
                    self.line(format!("if ({cond}) then"));
                    self.indent += 1;
                    let s1 = self.region(view, t, depth + 1)?;
                    self.indent -= 1;
                    let else_at = self.lines.len();
                    self.line("else");
                    self.indent += 1;
                    let s2 = self.region(view, f, depth + 1)?;
                    self.indent -= 1;
                    if self.lines.len() == else_at + 1 {
                        self.lines.pop();
                    }
                    self.line("end if");
                    match self.joined(view, &[s1, s2])? {
                        Some(after) => cur = after,
                        None => return Ok(Stop::Jumped),
                    }
                }
                ControlFlowVertex::Branch(c) => {
                    let cond = self.condition_text(c.condition.as_ref(), &cur)?;
                    // Edges to the same target share one case.
                    let mut cases: Vec<(String, Vec<i64>, bool)> = Vec::new();
                    for e in view.out_edges(&cur) {
                        let k = match cases.iter().position(|(t, _, _)| *t == e.target) {
                            Some(k) => k,
                            None => {
                                cases.push((e.target.to_string(), Vec::new(), false));
                                cases.len() - 1
                            }
                        };
                        if e.has_condition_value {
                            cases[k].1.push(e.condition_value);
                        } else {
                            cases[k].2 = true;
                        }
                    }
                    self.line(format!("select case ({cond})"));
                    let mut stops = Vec::new();
                    for (target, values, default) in &cases {
                        if *default {
                            self.line("case default");
                        } else {
                            let vs: Vec<String> = values.iter().map(|v| v.to_string()).collect();
                            self.line(format!("case ({})", vs.join(", ")));
                        }
                        self.indent += 1;
                        stops.push(self.region(view, target, depth + 1)?);
                        self.indent -= 1;
                    }
                    self.line("end select");
                    // Without a default case a value matching none goes on
                    // after the join, so the join must exist.
                    let has_default = cases.iter().any(|c| c.2);
                    match self.joined(view, &stops)? {
                        Some(after) => cur = after,
                        None if has_default => return Ok(Stop::Jumped),
                        None => return Err(Fallback::NotNested),
                    }
                }
                ControlFlowVertex::ForLoop(f) => {
                    let body = view.successor_on(&cur, 1).ok_or(Fallback::NotNested)?;
                    let exit = view.successor_on(&cur, 0).ok_or(Fallback::NotNested)?;
                    match self.do_header(f)? {
                        Some(header) => {
                            self.reserve_loop_body(view, body, &cur, &header);
                            let invariants = self.cache_loop_invariants(view, body, &cur)?;
                            self.open_loop(view, &cur, exit, true, header.text())?;
                            self.loop_body(view, body, &cur, depth)?;
                            self.drop_loop_invariants(&invariants);
                        }
                        None => {
                            if let Some(init) = &f.initialization {
                                self.block_elements(&[
                                    xaif_schema::BasicBlockElement::Assignment(init.clone()),
                                ])?;
                            }
                            let cond = self.condition_text(f.condition.as_ref(), &cur)?;
                            self.open_loop(view, &cur, exit, false, format!("do while ({cond})"))?;
                            self.indent += 1;
                            self.loop_body_inner(view, body, &cur, depth)?;
                            if let Some(update) = &f.update {
                                self.block_elements(&[
                                    xaif_schema::BasicBlockElement::Assignment(update.clone()),
                                ])?;
                            }
                            self.indent -= 1;
                            self.close_loop();
                        }
                    }
                    cur = exit.to_string();
                }
                ControlFlowVertex::PreLoop(c) => {
                    let body = view.successor_on(&cur, 1).ok_or(Fallback::NotNested)?;
                    let exit = view.successor_on(&cur, 0).ok_or(Fallback::NotNested)?;
                    let cond = self.condition_text(c.condition.as_ref(), &cur)?;
                    self.open_loop(view, &cur, exit, true, format!("do while ({cond})"))?;
                    self.loop_body(view, body, &cur, depth)?;
                    cur = exit.to_string();
                }
                ControlFlowVertex::PostLoop(c) => {
                    let body = view.successor_on(&cur, 1).ok_or(Fallback::NotNested)?;
                    let exit = view.successor_on(&cur, 0).ok_or(Fallback::NotNested)?;
                    let cond = self.condition_text(c.condition.as_ref(), &cur)?;
                    self.open_loop(view, &cur, exit, false, "do".to_string())?;
                    self.indent += 1;
                    self.loop_body_inner(view, body, &cur, depth)?;
                    self.line(format!("if (.not. ({cond})) exit"));
                    self.indent -= 1;
                    self.close_loop();
                    cur = exit.to_string();
                }
            }
        }
    }

    /// When a counted loop's body is free of calls and inner loops (see
    /// `push_runs::loop_body_pushes`), reserves room for the most pushes
    /// any iteration can make, times the trip count, before the loop; the
    /// body's blocks then store without a test.
    fn reserve_loop_body(&mut self, view: &CfgView, body: &str, loop_id: &str, h: &DoHeader) {
        let Some(reservation) =
            super::push_runs::loop_body_pushes(view, body, loop_id, self.inline)
        else {
            return;
        };
        let trips = super::push_runs::trip_count(&h.lo, &h.hi, &h.step);
        self.reserve_loop_pushes(&reservation.counts, &trips);
        self.reserved_blocks.extend(reservation.blocks);
    }

    /// Depth of the region that is the innermost loop's body.
    fn body_depth(&self) -> usize {
        self.loop_depths.last().copied().unwrap_or(usize::MAX)
    }

    /// Writes a loop header and enters the loop's context.
    fn open_loop(
        &mut self,
        view: &CfgView,
        loop_id: &str,
        exit: &str,
        cycle_ok: bool,
        header: String,
    ) -> Flow<()> {
        let end_loop = view
            .vertices
            .iter()
            .find(|v| {
                matches!(v, ControlFlowVertex::EndLoop(_))
                    && view.single_successor(v.vertex_id()) == Some(loop_id)
            })
            .map(|v| v.vertex_id().to_string())
            .ok_or(Fallback::NotNested)?;
        self.loops.push(LoopCtx {
            end_loop,
            exit_target: exit.to_string(),
            cycle_ok,
            name: None,
            header_line: self.lines.len(),
        });
        self.line(header);
        Ok(())
    }

    /// `end do` (named if an inner loop jumped to this one); leaves the
    /// loop's context.
    fn close_loop(&mut self) {
        let ctx = self.loops.pop();
        match ctx.and_then(|c| c.name.map(|n| (n, c.header_line))) {
            Some((name, at)) => {
                let header = &self.lines[at];
                let indent = header.len() - header.trim_start().len();
                let named = format!("{}{name}: {}", &header[..indent], header.trim_start());
                self.lines[at] = named;
                self.line(format!("end do {name}"));
            }
            None => self.line("end do"),
        }
    }

    /// Body of a loop and `end do`; the header is already written.
    fn loop_body(&mut self, view: &CfgView, body: &str, loop_id: &str, depth: usize) -> Flow<()> {
        self.indent += 1;
        self.loop_body_inner(view, body, loop_id, depth)?;
        self.indent -= 1;
        self.close_loop();
        Ok(())
    }

    fn loop_body_inner(
        &mut self,
        view: &CfgView,
        body: &str,
        loop_id: &str,
        depth: usize,
    ) -> Flow<()> {
        self.loop_depths.push(depth + 1);
        let stop = self.region(view, body, depth + 1);
        self.loop_depths.pop();
        match stop? {
            Stop::Jumped => Ok(()),
            Stop::Join(end)
                if matches!(
                    view.by_id.get(end.as_str()),
                    Some(ControlFlowVertex::EndLoop(_))
                ) && view.single_successor(&end) == Some(loop_id) =>
            {
                Ok(())
            }
            _ => Err(Fallback::NotNested),
        }
    }

    /// The branches that do not jump must stop at one EndBranch; where
    /// to continue after it (`None` if every branch jumped).
    fn joined(&self, view: &CfgView, stops: &[Stop]) -> Flow<Option<String>> {
        let mut join: Option<&String> = None;
        for s in stops {
            match s {
                Stop::Jumped => {}
                Stop::Join(id)
                    if matches!(
                        view.by_id.get(id.as_str()),
                        Some(ControlFlowVertex::EndBranch(_))
                    ) =>
                {
                    if join.is_some_and(|j| j != id) {
                        return Err(Fallback::NotNested);
                    }
                    join = Some(id);
                }
                _ => return Err(Fallback::NotNested),
            }
        }
        match join {
            Some(id) => view
                .single_successor(id)
                .map(|s| Some(s.to_string()))
                .ok_or(Fallback::NotNested),
            None => Ok(None),
        }
    }

    pub(crate) fn condition_text(
        &self,
        cond: Option<&xaif_schema::Expression>,
        vertex: &str,
    ) -> std::result::Result<String, Diagnostic> {
        match cond {
            Some(e) => self.env.expression(e),
            None => Err(self.env.xaif.error(
                &format!("vertex_id=\"{vertex}\""),
                format!("control flow vertex '{vertex}' has no condition"),
            )),
        }
    }

    /// `do i = lo, hi[, step]` when the loop has the counted pattern
    /// (`i = lo`; `i <= hi` or `i >= hi`; `i = i + step` or `i = i - c`)
    /// over an integer variable, with a step whose sign (when it is a
    /// literal) agrees with the comparison.
    pub(crate) fn do_header(
        &self,
        f: &ForLoop,
    ) -> std::result::Result<Option<DoHeader>, Diagnostic> {
        let (Some(init), Some(cond), Some(update)) = (&f.initialization, &f.condition, &f.update)
        else {
            return Ok(None);
        };
        let Some(var) = plain_symbol_name(&init.lhs.reference) else {
            return Ok(None);
        };
        let sym = self.env.ref_symbol(&init.lhs.reference)?;
        if sym.type_ != SymbolType::Integer || sym.active {
            return Ok(None);
        }
        if plain_symbol_name(&update.lhs.reference).as_deref() != Some(var.as_str()) {
            return Ok(None);
        }
        let is_var = |v: &ExpressionVertex| matches!(v, ExpressionVertex::VariableReference(r) if plain_symbol_name(r).as_deref() == Some(var.as_str()));
        // Condition: var <= hi / var >= hi (or hi >= var / hi <= var).
        let Some((croot, cargs)) = root_and_args(cond) else {
            return Ok(None);
        };
        let ExpressionVertex::BooleanOperation(op) = croot else {
            return Ok(None);
        };
        if cargs.len() != 2 {
            return Ok(None);
        }
        use xaif_schema::BooleanOp::*;
        let (upward, hi) = match (op.name, is_var(cargs[0]), is_var(cargs[1])) {
            (LessOrEqual, true, false) => (true, cargs[1]),
            (GreaterOrEqual, true, false) => (false, cargs[1]),
            (GreaterOrEqual, false, true) => (true, cargs[0]),
            (LessOrEqual, false, true) => (false, cargs[0]),
            _ => return Ok(None),
        };
        // Update: var + step, step + var, or var - c.
        let Some((uroot, uargs)) = root_and_args(&update.rhs) else {
            return Ok(None);
        };
        let ExpressionVertex::Intrinsic(add) = uroot else {
            return Ok(None);
        };
        if uargs.len() != 2 {
            return Ok(None);
        }
        let step = match (add.name.as_str(), is_var(uargs[0]), is_var(uargs[1])) {
            ("add_scal_scal", true, false) => {
                self.env.subexpression(&update.rhs, uargs[1].vertex_id())?
            }
            ("add_scal_scal", false, true) => {
                self.env.subexpression(&update.rhs, uargs[0].vertex_id())?
            }
            ("sub_scal_scal", true, false) => {
                let c = self.env.subexpression(&update.rhs, uargs[1].vertex_id())?;
                match c.strip_prefix('-') {
                    Some(pos) => pos.to_string(),
                    None if c.parse::<i64>().is_ok() => format!("-{c}"),
                    None => format!("-({c})"),
                }
            }
            _ => return Ok(None),
        };
        if let Some(n) = literal_sign(&step) {
            if (n > 0) != upward || n == 0 {
                return Ok(None);
            }
        }
        let lo = self.env.expression(&init.rhs)?;
        let hi = self.env.subexpression(cond, hi.vertex_id())?;
        Ok(Some(DoHeader { var, lo, hi, step }))
    }
}

/// A counted loop as a Fortran `do`: `do var = lo, hi[, step]`.
pub(crate) struct DoHeader {
    pub var: String,
    pub lo: String,
    pub hi: String,
    pub step: String,
}

impl DoHeader {
    pub fn text(&self) -> String {
        let DoHeader { var, lo, hi, step } = self;
        if step == "1" {
            format!("do {var} = {lo}, {hi}")
        } else {
            format!("do {var} = {lo}, {hi}, {step}")
        }
    }
}

/// The sign of an integer literal (possibly `-(3)` or `-3`), if it is one.
fn literal_sign(text: &str) -> Option<i64> {
    let t = text.replace(['(', ')', ' '], "");
    t.parse::<i64>().ok().map(i64::signum)
}
