//! The XAIF data model: one Rust type per element of the format.
//!
//! The types follow the reference schema (`xaif_base.xsd`, `xaif_output.xsd`,
//! `xaif_derivative_propagator.xsd` and the two intrinsic catalogues)
//! element by element. Attribute names are the schema's, in snake case.
//! Every attribute the schema gives a default is a plain field holding that
//! default (see the `Default` impls), so a model read from a document that
//! omits an attribute equals one read from a document that spells it out.
//!
//! Ids that the schema types as `xsd:string` (vertex and edge ids, statement
//! ids, symbol ids), names and annotations are [`Name`]s; ids typed as
//! integers (scope ids, alias and du/ud keys, positions) are integers.
//!
//! Where the schema allows vertices and edges to interleave, the model keeps
//! vertices and edges in two lists in document order; the writer emits all
//! vertices first, then all edges.

/// The string type of every id, name, annotation and constant value of the
/// model. A model holds millions of them, nearly all short ("12", "s3",
/// "add_scal_scal"): `CompactString` keeps up to 24 bytes inline in the
/// 24 bytes a `String` header takes, so they cost no heap allocation (an
/// empty annotation costs nothing beyond the header), and it dereferences
/// to `str` like a `String`. Longer ones go to the heap as before.
pub type Name = compact_str::CompactString;

/// Namespace of the core format.
pub const XAIF_NS: &str = "http://www.mcs.anl.gov/XAIF";
/// Namespace of the inlinable intrinsics catalogue.
pub const XAIF_II_NS: &str = "http://www.mcs.anl.gov/XAIFInlinableIntrinsics";
/// Namespace of the non-inlinable intrinsics catalogue.
pub const XAIF_NII_NS: &str = "http://www.mcs.anl.gov/XAIFNonInlinableIntrinsics";

// ---------------------------------------------------------------------------
// Enumerations
// ---------------------------------------------------------------------------

/// `SymbolKindType`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum SymbolKind {
    Subroutine,
    #[default]
    Variable,
    Pointer,
}

/// `SymbolTypeType`: the type of a symbol or of an intrinsic's result.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum SymbolType {
    Void,
    Integer,
    #[default]
    Real,
    Complex,
    Bool,
    Char,
    String,
    Opaque,
}

/// `SymbolShapeType`: scalar or the rank of an array.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, PartialOrd, Ord)]
pub enum SymbolShape {
    Void,
    #[default]
    Scalar,
    Vector,
    Matrix,
    ThreeTensor,
    FourTensor,
    FiveTensor,
    SixTensor,
    SevenTensor,
}

impl SymbolShape {
    /// The array rank (0 for scalars and void).
    pub fn rank(self) -> usize {
        match self {
            SymbolShape::Void | SymbolShape::Scalar => 0,
            SymbolShape::Vector => 1,
            SymbolShape::Matrix => 2,
            SymbolShape::ThreeTensor => 3,
            SymbolShape::FourTensor => 4,
            SymbolShape::FiveTensor => 5,
            SymbolShape::SixTensor => 6,
            SymbolShape::SevenTensor => 7,
        }
    }

    /// The shape of an array of the given rank (`None` above rank 7).
    pub fn from_rank(rank: usize) -> Option<SymbolShape> {
        Some(match rank {
            0 => SymbolShape::Scalar,
            1 => SymbolShape::Vector,
            2 => SymbolShape::Matrix,
            3 => SymbolShape::ThreeTensor,
            4 => SymbolShape::FourTensor,
            5 => SymbolShape::FiveTensor,
            6 => SymbolShape::SixTensor,
            7 => SymbolShape::SevenTensor,
            _ => return None,
        })
    }
}

/// `IntentType` of a dummy argument.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Intent {
    In,
    Out,
    #[default]
    InOut,
}

/// `ActiveUseType`: activity of one use of a variable.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum ActiveUse {
    #[default]
    Undefined,
    True,
    False,
}

/// `ConstantTypeType`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ConstantType {
    Real,
    Double,
    Integer,
    Bool,
    Char,
    String,
}

/// `BuiltinBooleanOperations`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum BooleanOp {
    LessThan,
    LessOrEqual,
    GreaterThan,
    GreaterOrEqual,
    Equal,
    NotEqual,
    And,
    Or,
    Not,
    Xor,
}

/// `ForLoopReversalType`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum ForLoopReversal {
    Explicit,
    #[default]
    Anonymous,
}

// ---------------------------------------------------------------------------
// Call graph and scopes
// ---------------------------------------------------------------------------

/// The document root: `CallGraph`.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct CallGraph {
    pub program_name: Option<Name>,
    /// Schema default: `GetRidOfThisDefault`.
    pub prefix: Name,
    pub scope_hierarchy: ScopeHierarchy,
    pub alias_set_map: AliasSetMap,
    pub duud_set_map: StmtIdSetMap,
    pub do_set_map: StmtIdSetMap,
    pub vertices: Vec<CallGraphVertex>,
    pub edges: Vec<Edge>,
}

/// The default of `CallGraph/@prefix` in the schema.
pub const DEFAULT_PREFIX: &str = "GetRidOfThisDefault";

/// A vertex of the call graph: an input control flow graph, or (booster
/// output) a list of replacements for a subroutine template.
#[derive(Debug, Clone, PartialEq)]
pub enum CallGraphVertex {
    ControlFlowGraph(ControlFlowGraph),
    ReplacementList(ReplacementList),
}

/// A plain graph edge (`EdgeType`): call graph and scope hierarchy edges,
/// variable reference edges.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Edge {
    pub edge_id: Name,
    pub source: Name,
    pub target: Name,
    pub annotation: Name,
}

/// `ScopeHierarchy`: scopes with their symbol tables, edges child → parent.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ScopeHierarchy {
    pub scopes: Vec<Scope>,
    pub edges: Vec<Edge>,
}

/// `Scope`.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Scope {
    pub vertex_id: Name,
    pub annotation: Name,
    /// One or more symbol tables (in practice one).
    pub symbol_tables: Vec<SymbolTable>,
}

/// `SymbolTable`.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct SymbolTable {
    pub symbols: Vec<Symbol>,
}

/// `Symbol/@annotation` of an assumed-size dummy array (`a(*)`, `a(n, *)`):
/// its extent is unknown, so no stage may ask for its bounds.
pub const ASSUMED_SIZE_ANNOTATION: &str = "assumed-size";

/// `Symbol/@annotation` of a named constant (a Fortran `parameter`): its
/// value is the same wherever it is read, so a subscript made of such
/// symbols (and restored loop indices) needs no taping.
pub const CONSTANT_ANNOTATION: &str = "constant";

/// `Symbol`.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Symbol {
    pub symbol_id: Name,
    pub kind: SymbolKind,
    pub type_: SymbolType,
    pub fe_type: Name,
    pub shape: SymbolShape,
    /// Schema default: true.
    pub active: bool,
    pub temp: bool,
    pub pointer: bool,
    pub annotation: Name,
    /// Up to seven `DimensionBounds`.
    pub dimension_bounds: Vec<DimensionBounds>,
}

/// `DimensionBounds` of one array dimension.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct DimensionBounds {
    pub lower: i64,
    pub upper: i64,
}

// ---------------------------------------------------------------------------
// Alias, du/ud and do maps
// ---------------------------------------------------------------------------

/// `AliasSetMap`: key → virtual address ranges.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct AliasSetMap {
    pub sets: Vec<AliasSet>,
}

/// `AliasSet`.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct AliasSet {
    pub key: u64,
    pub ranges: Vec<AliasRange>,
}

/// `AliasRange`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct AliasRange {
    pub from_virtual_address: u64,
    pub to_virtual_address: u64,
    /// Schema default: true.
    pub partial: bool,
}

/// `DUUDSetMap` and `DOSetMap`: key → set of statement ids.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct StmtIdSetMap {
    pub sets: Vec<StmtIdSet>,
}

/// `StmtIdSet`.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct StmtIdSet {
    pub key: u64,
    /// The `idRef`s of the `StatementId` children.
    pub statement_ids: Vec<Name>,
}

// ---------------------------------------------------------------------------
// Control flow graphs
// ---------------------------------------------------------------------------

/// `ControlFlowGraph`: one subroutine.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ControlFlowGraph {
    pub vertex_id: Name,
    pub annotation: Name,
    pub symbol_id: Name,
    pub scope_id: u64,
    pub controlflowgraph_scope_id: u64,
    /// Schema default: true.
    pub active: bool,
    /// Schema default: true.
    pub structured: bool,
    pub argument_list: Option<Vec<ArgumentSymbolReference>>,
    pub mod_local: Option<Vec<VariableReference>>,
    pub mod_: Option<Vec<VariableReference>>,
    pub read_local: Option<Vec<VariableReference>>,
    pub read: Option<Vec<VariableReference>>,
    pub on_entry: Option<Vec<VariableReference>>,
    pub vertices: Vec<ControlFlowVertex>,
    pub edges: Vec<ControlFlowEdge>,
}

/// `ArgumentSymbolReference`: one dummy argument.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ArgumentSymbolReference {
    pub position: u64,
    pub symbol_id: Name,
    pub scope_id: u64,
    pub deriv: bool,
    pub intent: Intent,
    pub annotation: Name,
}

/// `ControlFlowEdge`.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ControlFlowEdge {
    pub edge_id: Name,
    pub source: Name,
    pub target: Name,
    pub annotation: Name,
    pub has_condition_value: bool,
    /// Schema default: 1.
    pub condition_value: i64,
}

/// Every kind of control flow vertex.
// `ForLoop` (two assignments and a condition, ~540 bytes) is boxed: unboxed
// it made every vertex that large, and adjoint replacement lists hold
// hundreds of thousands of vertices. The other variants are unboxed, so
// other crates build and match them directly.
#[derive(Debug, Clone, PartialEq)]
pub enum ControlFlowVertex {
    Entry(PlainVertex),
    Exit(PlainVertex),
    BasicBlock(BasicBlock),
    If(ConditionVertex),
    /// Multi-way branch (select case); out-edges carry condition values.
    Branch(ConditionVertex),
    EndBranch(PlainVertex),
    ForLoop(Box<ForLoop>),
    /// Loop testing its condition before the body (do while).
    PreLoop(ConditionVertex),
    /// Loop testing its condition after the body.
    PostLoop(ConditionVertex),
    EndLoop(PlainVertex),
    Label(PlainVertex),
    Goto(PlainVertex),
}

impl ControlFlowVertex {
    /// The vertex id, whatever the kind.
    pub fn vertex_id(&self) -> &str {
        match self {
            ControlFlowVertex::Entry(v)
            | ControlFlowVertex::Exit(v)
            | ControlFlowVertex::EndBranch(v)
            | ControlFlowVertex::EndLoop(v)
            | ControlFlowVertex::Label(v)
            | ControlFlowVertex::Goto(v) => &v.vertex_id,
            ControlFlowVertex::BasicBlock(b) => &b.vertex_id,
            ControlFlowVertex::If(c)
            | ControlFlowVertex::Branch(c)
            | ControlFlowVertex::PreLoop(c)
            | ControlFlowVertex::PostLoop(c) => &c.vertex_id,
            ControlFlowVertex::ForLoop(f) => &f.vertex_id,
        }
    }

    /// The annotation, whatever the kind.
    pub fn annotation(&self) -> &str {
        match self {
            ControlFlowVertex::Entry(v)
            | ControlFlowVertex::Exit(v)
            | ControlFlowVertex::EndBranch(v)
            | ControlFlowVertex::EndLoop(v)
            | ControlFlowVertex::Label(v)
            | ControlFlowVertex::Goto(v) => &v.annotation,
            ControlFlowVertex::BasicBlock(b) => &b.annotation,
            ControlFlowVertex::If(c)
            | ControlFlowVertex::Branch(c)
            | ControlFlowVertex::PreLoop(c)
            | ControlFlowVertex::PostLoop(c) => &c.annotation,
            ControlFlowVertex::ForLoop(f) => &f.annotation,
        }
    }

    /// The XAIF element name of this kind of vertex.
    pub fn element_name(&self) -> &'static str {
        match self {
            ControlFlowVertex::Entry(_) => "Entry",
            ControlFlowVertex::Exit(_) => "Exit",
            ControlFlowVertex::BasicBlock(_) => "BasicBlock",
            ControlFlowVertex::If(_) => "If",
            ControlFlowVertex::Branch(_) => "Branch",
            ControlFlowVertex::EndBranch(_) => "EndBranch",
            ControlFlowVertex::ForLoop(_) => "ForLoop",
            ControlFlowVertex::PreLoop(_) => "PreLoop",
            ControlFlowVertex::PostLoop(_) => "PostLoop",
            ControlFlowVertex::EndLoop(_) => "EndLoop",
            ControlFlowVertex::Label(_) => "Label",
            ControlFlowVertex::Goto(_) => "Goto",
        }
    }
}

/// A control flow vertex with no content (Entry, Exit, EndBranch, EndLoop,
/// Label, Goto).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct PlainVertex {
    pub vertex_id: Name,
    pub annotation: Name,
}

/// A control flow vertex with a condition (If, Branch, PreLoop, PostLoop).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ConditionVertex {
    pub vertex_id: Name,
    pub annotation: Name,
    pub line_number: u64,
    pub condition: Option<Expression>,
}

/// `ForLoop`: counted loop with initialization, condition and update.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ForLoop {
    pub vertex_id: Name,
    pub annotation: Name,
    pub line_number: u64,
    pub reversal: ForLoopReversal,
    pub initialization: Option<Assignment>,
    pub condition: Option<Expression>,
    pub update: Option<Assignment>,
}

/// `BasicBlock`: an ordered list of statements.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct BasicBlock {
    pub vertex_id: Name,
    pub annotation: Name,
    pub scope_id: u64,
    pub elements: Vec<BasicBlockElement>,
}

/// One statement of a basic block. The last two occur only in booster output.
#[derive(Debug, Clone, PartialEq)]
pub enum BasicBlockElement {
    Assignment(Assignment),
    SubroutineCall(SubroutineCall),
    Marker(Marker),
    DerivativePropagator(DerivativePropagator),
    InlinableSubroutineCall(InlinableSubroutineCall),
}

/// `Assignment` (also used for ForLoop `Initialization` and `Update`, which
/// have no line number in the schema: the writer leaves it out there).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Assignment {
    pub statement_id: Name,
    pub do_chain: i64,
    pub line_number: u64,
    pub lhs: AssignmentLhs,
    pub rhs: Expression,
}

/// `AssignmentLHS`: a variable reference plus liveness.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct AssignmentLhs {
    pub reference: VariableReference,
    /// Schema default: true.
    pub live: bool,
}

/// `SubroutineCall`. The schema gives it no annotation attribute.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct SubroutineCall {
    pub statement_id: Name,
    pub symbol_id: Option<Name>,
    pub scope_id: Option<u64>,
    pub active: ActiveUse,
    pub line_number: u64,
    pub formal_arg_count: u64,
    pub arguments: Vec<Argument>,
}

/// `Argument` of a subroutine call (`SubroutineArgumentType`).
#[derive(Debug, Clone, PartialEq)]
pub struct Argument {
    pub position: u64,
    pub annotation: Name,
    pub value: ArgumentValue,
}

/// What an actual argument is.
#[derive(Debug, Clone, PartialEq)]
pub enum ArgumentValue {
    Variable(VariableReference),
    Constant(Constant),
}

/// `Marker`: a statement the booster leaves alone; its annotation tells the
/// back end what it stands for.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Marker {
    pub statement_id: Name,
    pub annotation: Name,
}

// ---------------------------------------------------------------------------
// Expressions
// ---------------------------------------------------------------------------

/// `ExpressionType`: a DAG of expression vertices; edges go from argument to
/// operation, `position` numbers the arguments from 1.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Expression {
    pub vertices: Vec<ExpressionVertex>,
    pub edges: Vec<ExpressionEdge>,
}

/// `ExpressionEdge`.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ExpressionEdge {
    pub edge_id: Name,
    pub source: Name,
    pub target: Name,
    pub position: i64,
    pub annotation: Name,
}

/// Every kind of expression vertex.
#[derive(Debug, Clone, PartialEq)]
pub enum ExpressionVertex {
    VariableReference(VariableReference),
    Constant(Constant),
    Intrinsic(Intrinsic),
    FunctionCall(FunctionCall),
    BooleanOperation(BooleanOperation),
    /// Only in the inlinable intrinsics catalogue: the n-th argument.
    ArgumentReference(ArgumentReference),
}

impl ExpressionVertex {
    /// The vertex id, whatever the kind.
    pub fn vertex_id(&self) -> &str {
        match self {
            ExpressionVertex::VariableReference(v) => &v.vertex_id,
            ExpressionVertex::Constant(v) => &v.vertex_id,
            ExpressionVertex::Intrinsic(v) => &v.vertex_id,
            ExpressionVertex::FunctionCall(v) => &v.vertex_id,
            ExpressionVertex::BooleanOperation(v) => &v.vertex_id,
            ExpressionVertex::ArgumentReference(v) => &v.vertex_id,
        }
    }
}

/// `VariableReference`: a small graph of symbol and array element
/// references (edges from the symbol to its subscript, or along a
/// derived-type access path).
#[derive(Debug, Clone, PartialEq)]
pub struct VariableReference {
    pub vertex_id: Name,
    pub annotation: Name,
    pub active: ActiveUse,
    pub alias: i64,
    pub du_ud: i64,
    pub deriv: bool,
    pub constant: bool,
    pub vertices: Vec<VariableReferenceVertex>,
    pub edges: Vec<Edge>,
}

impl Default for VariableReference {
    fn default() -> Self {
        VariableReference {
            vertex_id: "1".into(),
            annotation: Name::default(),
            active: ActiveUse::Undefined,
            alias: 0,
            du_ud: 0,
            deriv: false,
            constant: false,
            vertices: Vec::new(),
            edges: Vec::new(),
        }
    }
}

/// A vertex of a variable reference graph.
#[derive(Debug, Clone, PartialEq)]
pub enum VariableReferenceVertex {
    SymbolReference(SymbolReference),
    ArrayElementReference(ArrayElementReference),
}

impl VariableReferenceVertex {
    /// The vertex id, whatever the kind.
    pub fn vertex_id(&self) -> &str {
        match self {
            VariableReferenceVertex::SymbolReference(s) => &s.vertex_id,
            VariableReferenceVertex::ArrayElementReference(a) => &a.vertex_id,
        }
    }
}

/// `SymbolReference`.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct SymbolReference {
    pub vertex_id: Name,
    pub annotation: Name,
    pub symbol_id: Name,
    pub scope_id: u64,
    pub properties: Vec<SymbolReferenceProperty>,
}

/// `SymbolReferenceProperty`: a name/value pair.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct SymbolReferenceProperty {
    pub name: Name,
    pub value: Name,
}

/// `ArrayElementReference`: one subscript per dimension.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ArrayElementReference {
    pub vertex_id: Name,
    pub annotation: Name,
    pub index_triplets: Vec<IndexTriplet>,
}

/// `IndexTriplet`: `index`, or `index:bound:stride` for a section.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct IndexTriplet {
    pub index: Option<Expression>,
    pub bound: Option<Expression>,
    pub stride: Option<Expression>,
}

/// `Constant`.
#[derive(Debug, Clone, PartialEq)]
pub struct Constant {
    pub vertex_id: Name,
    pub annotation: Name,
    pub type_: ConstantType,
    pub fe_type: Name,
    pub value: Name,
}

/// `Intrinsic`: an operator or intrinsic function by catalogue name
/// (`add_scal_scal`, `sin_scal`, ...).
#[derive(Debug, Clone, PartialEq)]
pub struct Intrinsic {
    pub vertex_id: Name,
    pub annotation: Name,
    pub name: Name,
    /// Schema default: `inlinable`.
    pub type_: Name,
    pub r_type: SymbolType,
    pub r_shape: SymbolShape,
}

/// `FunctionCall` (the canonicaliser normally turns these into subroutine
/// calls; kept for completeness of the format).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct FunctionCall {
    pub vertex_id: Name,
    pub annotation: Name,
    pub symbol_id: Option<Name>,
    pub scope_id: Option<u64>,
    pub arguments: Vec<VariableReference>,
}

/// `BooleanOperation`.
#[derive(Debug, Clone, PartialEq)]
pub struct BooleanOperation {
    pub vertex_id: Name,
    pub annotation: Name,
    pub name: BooleanOp,
}

/// `xaifii:ArgumentReference` (catalogue only).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ArgumentReference {
    pub vertex_id: Name,
    pub annotation: Name,
    pub argument: u64,
}

// ---------------------------------------------------------------------------
// Output side: derivative propagators, inlinable calls, replacements
// ---------------------------------------------------------------------------

/// `DerivativePropagator`: derivative updates of a basic block.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct DerivativePropagator {
    pub entries: Vec<PropagatorEntry>,
}

/// Prefix of the `annotation` of a propagator entry's target reference
/// naming the statement whose derivatives the entry computes
/// (`stmt:s12`); booster output, for locating the generated code only.
pub const STATEMENT_ANNOTATION: &str = "stmt:";

impl DerivativePropagator {
    /// A propagator whose entries are marked as computing the derivatives
    /// of statement `statement_id` (targets without an annotation of
    /// their own get `stmt:ID`).
    pub fn of_statement(mut entries: Vec<PropagatorEntry>, statement_id: &str) -> Self {
        for e in &mut entries {
            let t = e.target_mut();
            if t.annotation.is_empty() {
                t.annotation = compact_str::format_compact!("{STATEMENT_ANNOTATION}{statement_id}");
            }
        }
        DerivativePropagator { entries }
    }

    /// The statement the first entry is marked with, if any.
    pub fn statement_id(&self) -> Option<&str> {
        self.entries
            .first()?
            .target()
            .annotation
            .strip_prefix(STATEMENT_ANNOTATION)
            .filter(|id| !id.is_empty())
    }
}

impl PropagatorEntry {
    /// The variable whose derivative the entry sets.
    pub fn target(&self) -> &VariableReference {
        match self {
            PropagatorEntry::SetDeriv { tgt, .. }
            | PropagatorEntry::SetNegDeriv { tgt, .. }
            | PropagatorEntry::IncDeriv { tgt, .. }
            | PropagatorEntry::DecDeriv { tgt, .. } => tgt,
            PropagatorEntry::Sax { y, .. } | PropagatorEntry::Saxpy { y, .. } => y,
            PropagatorEntry::ZeroDeriv(x) => x,
        }
    }

    pub fn target_mut(&mut self) -> &mut VariableReference {
        match self {
            PropagatorEntry::SetDeriv { tgt, .. }
            | PropagatorEntry::SetNegDeriv { tgt, .. }
            | PropagatorEntry::IncDeriv { tgt, .. }
            | PropagatorEntry::DecDeriv { tgt, .. } => tgt,
            PropagatorEntry::Sax { y, .. } | PropagatorEntry::Saxpy { y, .. } => y,
            PropagatorEntry::ZeroDeriv(x) => x,
        }
    }
}

/// One derivative update.
#[derive(Debug, Clone, PartialEq)]
pub enum PropagatorEntry {
    /// `d(tgt) = d(src)`.
    SetDeriv {
        tgt: VariableReference,
        src: VariableReference,
    },
    /// `d(tgt) = -d(src)`.
    SetNegDeriv {
        tgt: VariableReference,
        src: VariableReference,
    },
    /// `d(tgt) += d(src)`.
    IncDeriv {
        tgt: VariableReference,
        src: VariableReference,
    },
    /// `d(tgt) -= d(src)`.
    DecDeriv {
        tgt: VariableReference,
        src: VariableReference,
    },
    /// `d(y) = Σ a_i · d(x_i)`.
    Sax { ax: Vec<Ax>, y: VariableReference },
    /// `d(y) += Σ a_i · d(x_i)`.
    Saxpy { ax: Vec<Ax>, y: VariableReference },
    /// `d(x) = 0`.
    ZeroDeriv(VariableReference),
}

/// One `AX` term: a factor expression (a partial or an accumulated
/// Jacobian entry) times the derivative of `x`.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Ax {
    pub a: Expression,
    pub x: VariableReference,
}

/// `InlinableSubroutineCall`: a call of a runtime routine (tape push/pop,
/// checkpointing) the back end inlines.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct InlinableSubroutineCall {
    pub subroutine_name: Name,
    pub statement_id: Name,
    pub arguments: Vec<Argument>,
}

/// `ReplacementList`: the pieces of a subroutine that fill the
/// placeholders of a template (split/joint adjoint wrappers).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ReplacementList {
    pub vertex_id: Name,
    pub annotation: Name,
    pub template_name: Name,
    pub symbol_id: Name,
    pub scope_id: u64,
    pub controlflowgraph_scope_id: u64,
    pub argument_list: Option<Vec<ArgumentSymbolReference>>,
    pub replacements: Vec<Replacement>,
}

/// `Replacement`: one placeholder's control flow graph.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Replacement {
    pub placeholder: Name,
    /// Schema default: true.
    pub structured: bool,
    pub vertices: Vec<ControlFlowVertex>,
    pub edges: Vec<ControlFlowEdge>,
}

// ---------------------------------------------------------------------------
// Intrinsic catalogues
// ---------------------------------------------------------------------------

/// `xaifii:InlinableIntrinsicDefinitions`: the partials of each intrinsic.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct InlinableIntrinsicDefinitions {
    /// `C`, `CPP`, `F77`, `F90` or `F95`.
    pub language: String,
    pub intrinsics: Vec<InlinableIntrinsic>,
}

/// `xaifii:InlinableIntrinsic`.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct InlinableIntrinsic {
    pub name: String,
    pub nr_arguments: u64,
    pub return_type: SymbolType,
    pub non_smooth: bool,
    /// `no_change` (default), `scalar` or `rank`.
    pub shape_change: String,
    pub function: IntrinsicFunction,
    pub partials: Vec<IntrinsicPartial>,
}

/// `xaifii:Function`: how the intrinsic itself is computed.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct IntrinsicFunction {
    /// `builtin` or `user_defined` (default).
    pub type_: String,
    pub builtin_name: Option<String>,
    pub expression: Expression,
}

/// `xaifii:Partial`: the partial with respect to argument `partial_id`,
/// as an expression over `ArgumentReference`s.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct IntrinsicPartial {
    pub partial_id: u64,
    /// `passive`, `linear_one`, `linear_minus_one`, `linear` or
    /// `nonlinear` (default).
    pub partial_type: String,
    pub non_value_inquiry: bool,
    pub expression: Expression,
}

/// `xaifnii:NonInlinableIntrinsicDefinitions`.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct NonInlinableIntrinsicDefinitions {
    pub definitions: Vec<NonInlinableIntrinsic>,
}

/// One non-inlinable intrinsic.
#[derive(Debug, Clone, PartialEq)]
pub enum NonInlinableIntrinsic {
    ExplicitJacobian {
        name: String,
        non_smooth: bool,
        jacobian: String,
        return_type: SymbolType,
        partials: Vec<ExplicitPartial>,
    },
    DirectAction {
        name: String,
        non_smooth: bool,
        deriv_action: String,
    },
}

/// A `Partial` of an explicit Jacobian: entry (dep, indep) is the
/// `partial`-th output of the Jacobian routine.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct ExplicitPartial {
    pub dep: u64,
    pub indep: u64,
    pub partial: u64,
}
