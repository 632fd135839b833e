//! A small builder for [`Program`]s: statement ids, dummy positions and
//! successor lists are filled in for you. Used by the tests, and handy for
//! a front end lowering its control flow graphs.

use super::ir::{
    ActualPart, Block, BlockId, Callee, Def, ElementId, LocationId, LocationInfo, LocationKind,
    Program, Stmt, StmtId, Unit, UnitId, Use,
};

/// The type class of a new location.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ty {
    /// Real, double precision, complex scalar.
    Real,
    /// Array of reals.
    RealArray,
    /// Integer, logical or character scalar.
    Int,
    /// Array of integers, logicals or characters.
    IntArray,
}

/// Builds a [`Program`] step by step.
#[derive(Debug, Clone, Default)]
pub struct ProgramBuilder {
    program: Program,
    exits: Vec<Option<BlockId>>,
    next_stmt: u32,
}

impl ProgramBuilder {
    pub fn new() -> ProgramBuilder {
        ProgramBuilder {
            next_stmt: 1,
            ..ProgramBuilder::default()
        }
    }

    fn location(&mut self, name: &str, kind: LocationKind, ty: Ty) -> LocationId {
        self.program.locations.push(LocationInfo {
            name: name.to_string(),
            kind,
            differentiable_type: matches!(ty, Ty::Real | Ty::RealArray),
            is_array: matches!(ty, Ty::RealArray | Ty::IntArray),
        });
        LocationId(self.program.locations.len() as u32 - 1)
    }

    /// A new unit; its first block is its entry, by default its last block
    /// its exit.
    pub fn unit(&mut self, name: &str) -> UnitId {
        self.program.units.push(Unit {
            name: name.to_string(),
            ..Unit::default()
        });
        self.exits.push(None);
        UnitId(self.program.units.len() as u32 - 1)
    }

    /// The next dummy argument of `unit`.
    pub fn dummy(&mut self, unit: UnitId, name: &str, ty: Ty) -> LocationId {
        let position = self.program.units[unit.index()].dummies.len();
        let l = self.location(name, LocationKind::Dummy { unit, position }, ty);
        self.program.units[unit.index()].dummies.push(l);
        l
    }

    pub fn local(&mut self, unit: UnitId, name: &str, ty: Ty) -> LocationId {
        self.location(name, LocationKind::Local { unit }, ty)
    }

    pub fn global(&mut self, name: &str, ty: Ty) -> LocationId {
        self.location(name, LocationKind::Global, ty)
    }

    /// A new, empty block of `unit`.
    pub fn block(&mut self, unit: UnitId) -> BlockId {
        let u = &mut self.program.units[unit.index()];
        u.blocks.push(Block::default());
        u.successors.push(Vec::new());
        BlockId(u.blocks.len() as u32 - 1)
    }

    /// A control flow edge.
    pub fn edge(&mut self, unit: UnitId, from: BlockId, to: BlockId) {
        let u = &mut self.program.units[unit.index()];
        if let Some(s) = u.successors.get_mut(from.index()) {
            s.push(to);
        }
    }

    /// Straight-line edges `blocks[0] → blocks[1] → ...`.
    pub fn chain(&mut self, unit: UnitId, blocks: &[BlockId]) {
        for w in blocks.windows(2) {
            self.edge(unit, w[0], w[1]);
        }
    }

    pub fn set_entry(&mut self, unit: UnitId, block: BlockId) {
        self.program.units[unit.index()].entry = block;
    }

    pub fn set_exit(&mut self, unit: UnitId, block: BlockId) {
        self.exits[unit.index()] = Some(block);
    }

    fn push(&mut self, unit: UnitId, block: BlockId, make: impl FnOnce(StmtId) -> Stmt) -> StmtId {
        let id = StmtId(self.next_stmt);
        self.next_stmt += 1;
        if let Some(b) = self.program.units[unit.index()]
            .blocks
            .get_mut(block.index())
        {
            b.stmts.push(make(id));
        }
        id
    }

    /// `def = f(uses)`, the whole of `def` overwritten.
    pub fn assign(
        &mut self,
        unit: UnitId,
        block: BlockId,
        def: LocationId,
        uses: &[Use],
    ) -> StmtId {
        let uses = uses.to_vec();
        self.push(unit, block, |id| Stmt::Assign {
            id,
            def: Def::whole(def),
            uses,
        })
    }

    /// `def(i) = f(uses)`: part of `def` overwritten.
    pub fn assign_partial(
        &mut self,
        unit: UnitId,
        block: BlockId,
        def: LocationId,
        uses: &[Use],
    ) -> StmtId {
        let uses = uses.to_vec();
        self.push(unit, block, |id| Stmt::Assign {
            id,
            def: Def::partial(def),
            uses,
        })
    }

    /// `def(k) = f(uses)` with constant subscripts: the element `element`
    /// of `def` overwritten.
    pub fn assign_element(
        &mut self,
        unit: UnitId,
        block: BlockId,
        def: LocationId,
        element: ElementId,
        uses: &[Use],
    ) -> StmtId {
        let uses = uses.to_vec();
        self.push(unit, block, |id| Stmt::Assign {
            id,
            def: Def::element(def, Some(element)),
            uses,
        })
    }

    /// `call callee(actuals)`, every actual a whole variable.
    pub fn call(
        &mut self,
        unit: UnitId,
        block: BlockId,
        callee: UnitId,
        actuals: &[Option<LocationId>],
    ) -> StmtId {
        let parts = vec![ActualPart::Whole; actuals.len()];
        self.call_parts(unit, block, callee, actuals, &parts)
    }

    /// `call callee(actuals)`, `parts[p]` saying how much of `actuals[p]`
    /// is passed (`call f(a(1), b(:, j))`).
    pub fn call_parts(
        &mut self,
        unit: UnitId,
        block: BlockId,
        callee: UnitId,
        actuals: &[Option<LocationId>],
        parts: &[ActualPart],
    ) -> StmtId {
        let (actuals, parts) = (actuals.to_vec(), parts.to_vec());
        self.push(unit, block, |id| Stmt::Call {
            id,
            callee: Callee::Unit(callee),
            actuals,
            parts,
        })
    }

    /// `call name(actuals)` of a routine without a body.
    pub fn call_external(
        &mut self,
        unit: UnitId,
        block: BlockId,
        name: &str,
        actuals: &[Option<LocationId>],
    ) -> StmtId {
        let parts = vec![ActualPart::Whole; actuals.len()];
        let actuals = actuals.to_vec();
        let name = name.to_string();
        self.push(unit, block, |id| Stmt::Call {
            id,
            callee: Callee::External(name),
            actuals,
            parts,
        })
    }

    /// An opaque statement.
    pub fn opaque(
        &mut self,
        unit: UnitId,
        block: BlockId,
        defs: &[Def],
        uses: &[LocationId],
    ) -> StmtId {
        let (defs, uses) = (defs.to_vec(), uses.to_vec());
        self.push(unit, block, |id| Stmt::Opaque { id, defs, uses })
    }

    pub fn finish(mut self) -> Program {
        for (u, exit) in self.exits.iter().enumerate() {
            let unit = &mut self.program.units[u];
            unit.exit = exit.unwrap_or(BlockId(unit.blocks.len().saturating_sub(1) as u32));
        }
        self.program
    }
}
