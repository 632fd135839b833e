//! The typed syntax tree the parser produces and the canonicaliser rewrites.
//!
//! It covers the Fortran the front end understands; anything else is
//! rejected by the parser with a named error, so later stages can match
//! exhaustively.

use xaif_schema::diagnostic::Kind;

/// A position in the normalised text of one input file (1-based).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct Span {
    pub file: usize,
    pub line: usize,
    pub column: usize,
}

/// An error found by one of the front end stages, before it is mapped back
/// to the original file through the line map.
#[derive(Debug, Clone, PartialEq)]
pub struct FrontError {
    pub span: Span,
    pub kind: Kind,
    pub message: String,
}

impl FrontError {
    /// A rule of the language or the tool broken (kind `Semantic`).
    pub fn new(span: Span, message: impl Into<String>) -> Self {
        FrontError {
            span,
            kind: Kind::Semantic,
            message: message.into(),
        }
    }

    /// A construct the front end refuses; `message` names it.
    pub fn unsupported(span: Span, message: impl Into<String>) -> Self {
        FrontError {
            kind: Kind::Unsupported,
            ..FrontError::new(span, message)
        }
    }

    /// Text that does not parse.
    pub fn syntax(span: Span, message: impl Into<String>) -> Self {
        FrontError {
            kind: Kind::Syntax,
            ..FrontError::new(span, message)
        }
    }
}

pub type FrontResult<T> = Result<T, FrontError>;

/// Literal constants keep their Fortran spelling: XAIF constants and the
/// canonical source print them verbatim.
#[derive(Debug, Clone, PartialEq)]
pub enum Literal {
    Int(String),
    Real(String),
    Logical(bool),
    Str(String),
    Complex(String),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum UnOp {
    Neg,
    Plus,
    Not,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BinOp {
    Add,
    Sub,
    Mul,
    Div,
    Pow,
    Concat,
    Lt,
    Le,
    Gt,
    Ge,
    Eq,
    Ne,
    And,
    Or,
    Eqv,
    Neqv,
}

impl BinOp {
    pub fn is_relational(self) -> bool {
        matches!(
            self,
            BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge | BinOp::Eq | BinOp::Ne
        )
    }
    pub fn is_logical(self) -> bool {
        matches!(self, BinOp::And | BinOp::Or | BinOp::Eqv | BinOp::Neqv)
    }
    pub fn fortran(self) -> &'static str {
        match self {
            BinOp::Add => "+",
            BinOp::Sub => "-",
            BinOp::Mul => "*",
            BinOp::Div => "/",
            BinOp::Pow => "**",
            BinOp::Concat => "//",
            BinOp::Lt => "<",
            BinOp::Le => "<=",
            BinOp::Gt => ">",
            BinOp::Ge => ">=",
            BinOp::Eq => "==",
            BinOp::Ne => "/=",
            BinOp::And => ".and.",
            BinOp::Or => ".or.",
            BinOp::Eqv => ".eqv.",
            BinOp::Neqv => ".neqv.",
        }
    }
}

/// An actual argument or subscript.
#[derive(Debug, Clone, PartialEq)]
pub struct Arg {
    pub keyword: Option<String>,
    pub value: Expr,
}

#[derive(Debug, Clone, PartialEq)]
pub enum Expr {
    Lit(Literal, Span),
    /// A bare name (variable, parameter, or a function without arguments
    /// used as an actual argument).
    Name(String, Span),
    /// `name(args)`: an array element/section or a function reference; sema
    /// tells which.
    Apply {
        name: String,
        args: Vec<Arg>,
        span: Span,
    },
    /// `base%field` or `base%field(args)`: derived-type access (passive).
    Member {
        base: Box<Expr>,
        field: String,
        args: Option<Vec<Arg>>,
        span: Span,
    },
    Unary(UnOp, Box<Expr>, Span),
    Binary(BinOp, Box<Expr>, Box<Expr>, Span),
    Paren(Box<Expr>, Span),
    /// `lo:hi:stride` inside a subscript list.
    Range {
        lo: Option<Box<Expr>>,
        hi: Option<Box<Expr>>,
        stride: Option<Box<Expr>>,
        span: Span,
    },
    ArrayCtor(Vec<Expr>, Span),
    /// `(items, var = lo, hi, step)`: an implied-do item of an array
    /// constructor or an I/O list.
    ImpliedDo {
        items: Vec<Expr>,
        control: Box<DoControl>,
        span: Span,
    },
}

impl Expr {
    /// Every name the expression mentions, in order of appearance
    /// (variables, and function names that callers filter out).
    pub fn collect_names(&self, out: &mut Vec<String>) {
        match self {
            Expr::Lit(..) => {}
            Expr::Name(n, _) => out.push(n.clone()),
            Expr::Apply { name, args, .. } => {
                out.push(name.clone());
                for a in args {
                    a.value.collect_names(out);
                }
            }
            Expr::Member { base, args, .. } => {
                base.collect_names(out);
                for a in args.iter().flatten() {
                    a.value.collect_names(out);
                }
            }
            Expr::Unary(_, x, _) | Expr::Paren(x, _) => x.collect_names(out),
            Expr::Binary(_, a, b, _) => {
                a.collect_names(out);
                b.collect_names(out);
            }
            Expr::Range { lo, hi, stride, .. } => {
                for x in [lo, hi, stride].into_iter().flatten() {
                    x.collect_names(out);
                }
            }
            Expr::ArrayCtor(items, _) => {
                for x in items {
                    x.collect_names(out);
                }
            }
            Expr::ImpliedDo { items, control, .. } => {
                for x in items {
                    x.collect_names(out);
                }
                for x in [Some(&control.lo), Some(&control.hi), control.step.as_ref()]
                    .into_iter()
                    .flatten()
                {
                    x.collect_names(out);
                }
            }
        }
    }

    pub fn span(&self) -> Span {
        match self {
            Expr::Lit(_, s)
            | Expr::Name(_, s)
            | Expr::Unary(_, _, s)
            | Expr::Binary(_, _, _, s)
            | Expr::Paren(_, s)
            | Expr::ArrayCtor(_, s)
            | Expr::ImpliedDo { span: s, .. } => *s,
            Expr::Apply { span, .. } | Expr::Member { span, .. } | Expr::Range { span, .. } => {
                *span
            }
        }
    }

    pub fn int(v: i64, span: Span) -> Expr {
        Expr::Lit(Literal::Int(v.to_string()), span)
    }

    /// The integer value of a literal (possibly negated), if it is one.
    pub fn const_int(&self) -> Option<i64> {
        match self {
            Expr::Lit(Literal::Int(t), _) => t.split('_').next()?.parse().ok(),
            Expr::Unary(UnOp::Neg, e, _) => e.const_int().map(|v| -v),
            Expr::Unary(UnOp::Plus, e, _) | Expr::Paren(e, _) => e.const_int(),
            _ => None,
        }
    }

    /// Visits this expression and every subexpression, parents first.
    pub fn walk<'a>(&'a self, f: &mut dyn FnMut(&'a Expr)) {
        f(self);
        match self {
            Expr::Lit(..) | Expr::Name(..) => {}
            Expr::Apply { args, .. } => args.iter().for_each(|a| a.value.walk(f)),
            Expr::Member { base, args, .. } => {
                base.walk(f);
                if let Some(args) = args {
                    args.iter().for_each(|a| a.value.walk(f));
                }
            }
            Expr::Unary(_, e, _) | Expr::Paren(e, _) => e.walk(f),
            Expr::Binary(_, l, r, _) => {
                l.walk(f);
                r.walk(f);
            }
            Expr::Range { lo, hi, stride, .. } => {
                for e in [lo, hi, stride].into_iter().flatten() {
                    e.walk(f);
                }
            }
            Expr::ArrayCtor(items, _) => items.iter().for_each(|e| e.walk(f)),
            // The variable is written, not read: not visited.
            Expr::ImpliedDo { items, control, .. } => {
                items.iter().for_each(|e| e.walk(f));
                for e in [Some(&control.lo), Some(&control.hi), control.step.as_ref()]
                    .into_iter()
                    .flatten()
                {
                    e.walk(f);
                }
            }
        }
    }
}

#[derive(Debug, Clone, PartialEq)]
pub enum BaseType {
    Integer,
    Real,
    DoublePrecision,
    Complex,
    DoubleComplex,
    Logical,
    Character,
    Derived(String),
}

/// A type as written: base type plus kind and (for character) length.
#[derive(Debug, Clone, PartialEq)]
pub struct TypeSpec {
    pub base: BaseType,
    pub kind: Option<Expr>,
    /// Character length: an expression, or `None` with `len_star` for `*`.
    pub len: Option<Expr>,
    pub len_star: bool,
}

impl TypeSpec {
    pub fn new(base: BaseType) -> Self {
        TypeSpec {
            base,
            kind: None,
            len: None,
            len_star: false,
        }
    }
}

/// One dimension of an array declaration.
#[derive(Debug, Clone, PartialEq)]
pub enum DimSpec {
    Explicit {
        lo: Option<Expr>,
        hi: Expr,
    },
    /// `:` or `lo:` (assumed shape, or deferred for allocatables/pointers).
    Colon {
        lo: Option<Expr>,
    },
    /// `*` or `lo:*`.
    AssumedSize {
        lo: Option<Expr>,
    },
}

#[derive(Debug, Clone, PartialEq)]
pub enum Intent {
    In,
    Out,
    InOut,
}

#[derive(Debug, Clone, PartialEq)]
pub enum Attr {
    Parameter,
    Dimension(Vec<DimSpec>),
    Intent(Intent),
    Optional,
    Allocatable,
    Pointer,
    Target,
    Save,
    External,
    Intrinsic,
    Public,
    Private,
    /// Checks and hints without effect on the values: dropped.
    Contiguous,
    Protected,
    /// Rewritten by the parser into an `intent(in)` dummy and a local copy
    /// (`parse/constructs.rs`).
    Value,
}

#[derive(Debug, Clone, PartialEq)]
pub struct EntityDecl {
    pub name: String,
    pub dims: Option<Vec<DimSpec>>,
    pub char_len: Option<Expr>,
    pub init: Option<Expr>,
    pub span: Span,
}

#[derive(Debug, Clone, PartialEq)]
pub struct ImplicitRule {
    pub ty: TypeSpec,
    pub ranges: Vec<(char, char)>,
}

/// One `name /values/` group of a data statement.
#[derive(Debug, Clone, PartialEq)]
pub struct DataSet {
    pub names: Vec<Expr>,
    /// Values with repeat counts (`3*0.0` is `(3, 0.0)`).
    pub values: Vec<(usize, Expr)>,
}

#[derive(Debug, Clone, PartialEq)]
pub enum SpecStmt {
    Use {
        module: String,
        only: bool,
        /// (local name, module name) pairs; for `only` lists also the plain
        /// names (local == module).
        items: Vec<(String, String)>,
        span: Span,
    },
    ImplicitNone(Span),
    Implicit(Vec<ImplicitRule>, Span),
    TypeDecl {
        ty: TypeSpec,
        attrs: Vec<Attr>,
        entities: Vec<EntityDecl>,
        span: Span,
    },
    /// `dimension`, `save`, `intent`, `external`, ... statements.
    AttrStmt {
        attr: Attr,
        entities: Vec<EntityDecl>,
        span: Span,
    },
    Parameter(Vec<(String, Expr)>, Span),
    Common(Vec<(String, Vec<EntityDecl>)>, Span),
    Data(Vec<DataSet>, Span),
    /// `save` with no list.
    SaveAll(Span),
    /// `public`/`private` without a list.
    DefaultAccess(bool, Span),
    /// A derived type definition, kept as text (derived types are passive
    /// containers).
    DerivedType {
        name: String,
        /// The definition without its binding part (`contains` to `end
        /// type`): the type-bound procedures are devirtualised before the
        /// semantic model (`type_bound.rs`).
        text: String,
        /// Component declarations (for the types of component references).
        components: Vec<SpecStmt>,
        /// The type it extends (`type, extends(parent) :: name`).
        extends: Option<String>,
        /// Its type-bound procedures (`procedure`, `generic` bindings).
        bindings: Vec<TypeBinding>,
        span: Span,
    },
    Interface {
        generic: Option<String>,
        bodies: Vec<Unit>,
        /// Specific procedures named by `module procedure` / `procedure`
        /// statements of a generic interface.
        procedures: Vec<String>,
        text: String,
        span: Span,
    },
    /// `abstract interface` block: interfaces that `procedure(name)`
    /// declarations name; replaced by copies of its bodies before the
    /// semantic model (`abstract_interfaces.rs`).
    AbstractInterface {
        bodies: Vec<Unit>,
        span: Span,
    },
    /// `procedure(iface) [, intent(in)] [, optional] :: f, g`: procedures
    /// (dummy arguments) with the interface of `iface`; replaced by
    /// interface bodies before the semantic model (`abstract_interfaces.rs`).
    ProcedureDecl {
        interface: String,
        optional: bool,
        entities: Vec<EntityDecl>,
        span: Span,
    },
    /// `f(x, y) = expr` in the specification part.
    StmtFunction {
        name: String,
        params: Vec<String>,
        body: Expr,
        span: Span,
    },
    /// `format` statements and the like: copied verbatim.
    Verbatim(String, Span),
    /// `namelist /g/ a, b`: copied as written (`parse/namelist.rs`).
    Namelist {
        groups: Vec<(String, Vec<String>)>,
        text: String,
        span: Span,
    },
}

/// Where a specific type-bound procedure receives the object it is
/// invoked on.
#[derive(Debug, Clone, PartialEq)]
pub enum PassedObject {
    /// The first dummy argument (the default).
    First,
    /// `pass(name)`: the dummy argument `name`.
    Named(String),
    /// `nopass`: not passed.
    None,
}

/// One binding of a derived type's binding part.
#[derive(Debug, Clone, PartialEq)]
pub enum TypeBinding {
    /// `procedure [, pass(a) | nopass] :: name [=> procedure]`.
    Specific {
        name: String,
        procedure: String,
        passed: PassedObject,
        span: Span,
    },
    /// `generic :: name => binding, binding` (also `operator(+)`,
    /// `assignment(=)` under their generic names).
    Generic {
        name: String,
        specifics: Vec<String>,
        span: Span,
    },
}

impl TypeBinding {
    pub fn name(&self) -> &str {
        match self {
            TypeBinding::Specific { name, .. } | TypeBinding::Generic { name, .. } => name,
        }
    }
    pub fn span(&self) -> Span {
        match self {
            TypeBinding::Specific { span, .. } | TypeBinding::Generic { span, .. } => *span,
        }
    }
}

/// The name a type-bound call `call object%binding(args)` has in the
/// parsed `StmtKind::Call`: the binding after this prefix (never a Fortran
/// name), the object as the first actual argument. `type_bound.rs`
/// replaces every such call by a call of the bound procedure.
pub const TYPE_BOUND_CALL: &str = "%";

#[derive(Debug, Clone, PartialEq)]
pub struct DoControl {
    pub var: String,
    pub lo: Expr,
    pub hi: Expr,
    pub step: Option<Expr>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct CaseBlock {
    /// `None` for `case default`; otherwise values and ranges.
    pub values: Option<Vec<Expr>>,
    pub body: Vec<Stmt>,
}

/// Kinds of statements the booster must not touch.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OpaqueKind {
    Io,
    Allocate,
    Stop,
    PointerAssign,
    /// An assignment of character, derived-type or complex data.
    PassiveAssign,
    /// The whole-value copy of a derived type with real components
    /// (`canon/derived_values.rs`), followed by the copies of those.
    DerivedCopy,
    /// `call NAME(...)` of a routine declared with `--black-box`
    /// (`black_box.rs`).
    BlackBox,
    /// `call mpi_NAME(...)` on real data (`mpi.rs`).
    Mpi,
    Other,
}

#[derive(Debug, Clone, PartialEq)]
pub enum StmtKind {
    Assign {
        lhs: Expr,
        rhs: Expr,
    },
    Call {
        name: String,
        args: Vec<Arg>,
    },
    If {
        /// `if` and `else if` arms.
        arms: Vec<(Expr, Vec<Stmt>)>,
        otherwise: Option<Vec<Stmt>>,
    },
    Do {
        construct: Option<String>,
        control: Option<DoControl>,
        body: Vec<Stmt>,
    },
    DoWhile {
        construct: Option<String>,
        cond: Expr,
        body: Vec<Stmt>,
    },
    Select {
        selector: Expr,
        cases: Vec<CaseBlock>,
    },
    /// `where (mask) ... elsewhere (mask) ... elsewhere ... end where`:
    /// arms of array assignments (the canonicaliser turns it into loops).
    Where {
        arms: Vec<(Option<Expr>, Vec<Stmt>)>,
    },
    /// `forall (i = lo:hi:step, ..., mask) assignments end forall` (the
    /// canonicaliser turns it into loops).
    Forall {
        controls: Vec<DoControl>,
        mask: Option<Expr>,
        body: Vec<Stmt>,
    },
    Exit(Option<String>),
    Cycle(Option<String>),
    Goto(String),
    Continue,
    Return,
    /// Verbatim text (already canonical) with what it is.
    Opaque {
        kind: OpaqueKind,
        text: String,
        /// Expressions the statement reads (for analyses).
        reads: Vec<Expr>,
        /// Variables it may write (read targets, allocate objects).
        writes: Vec<Expr>,
    },
}

#[derive(Debug, Clone, PartialEq)]
pub struct Stmt {
    /// Program-wide statement number, given after canonicalisation to
    /// assignments, calls and opaque statements (0 until then).
    pub id: usize,
    pub label: Option<String>,
    pub span: Span,
    pub kind: StmtKind,
}

/// A visitor's action on one statement or expression; an error stops the
/// walk.
pub type VisitMut<'f, T> = &'f mut dyn FnMut(&mut T) -> FrontResult<()>;

impl Stmt {
    /// Applies `f` to every statement of `stmts`, each before the
    /// statements nested in it.
    pub fn walk_mut(stmts: &mut [Stmt], f: VisitMut<Stmt>) -> FrontResult<()> {
        for s in stmts {
            f(s)?;
            match &mut s.kind {
                StmtKind::If { arms, otherwise } => {
                    for (_, body) in arms {
                        Stmt::walk_mut(body, f)?;
                    }
                    if let Some(body) = otherwise {
                        Stmt::walk_mut(body, f)?;
                    }
                }
                StmtKind::Do { body, .. }
                | StmtKind::DoWhile { body, .. }
                | StmtKind::Forall { body, .. } => Stmt::walk_mut(body, f)?,
                StmtKind::Select { cases, .. } => {
                    for case in cases {
                        Stmt::walk_mut(&mut case.body, f)?;
                    }
                }
                StmtKind::Where { arms } => {
                    for (_, body) in arms {
                        Stmt::walk_mut(body, f)?;
                    }
                }
                _ => {}
            }
        }
        Ok(())
    }

    /// Applies `f` to the expressions of this statement itself (not of the
    /// statements nested in it): operands, conditions, loop controls,
    /// actual arguments, what an opaque statement reads and writes.
    pub fn own_exprs_mut(&mut self, f: VisitMut<Expr>) -> FrontResult<()> {
        fn control(c: &mut DoControl, f: VisitMut<Expr>) -> FrontResult<()> {
            f(&mut c.lo)?;
            f(&mut c.hi)?;
            c.step.as_mut().map_or(Ok(()), f)
        }
        match &mut self.kind {
            StmtKind::Assign { lhs, rhs } => {
                f(lhs)?;
                f(rhs)
            }
            StmtKind::Call { args, .. } => args.iter_mut().try_for_each(|a| f(&mut a.value)),
            StmtKind::If { arms, .. } => arms.iter_mut().try_for_each(|(c, _)| f(c)),
            StmtKind::Do { control: c, .. } => c.as_mut().map_or(Ok(()), |c| control(c, f)),
            StmtKind::DoWhile { cond, .. } => f(cond),
            StmtKind::Select { selector, cases } => {
                f(selector)?;
                cases
                    .iter_mut()
                    .flat_map(|c| c.values.iter_mut().flatten())
                    .try_for_each(&mut *f)
            }
            StmtKind::Where { arms } => arms
                .iter_mut()
                .filter_map(|(m, _)| m.as_mut())
                .try_for_each(&mut *f),
            StmtKind::Forall { controls, mask, .. } => {
                controls.iter_mut().try_for_each(|c| control(c, f))?;
                mask.as_mut().map_or(Ok(()), f)
            }
            StmtKind::Opaque { reads, writes, .. } => {
                reads.iter_mut().chain(writes.iter_mut()).try_for_each(f)
            }
            StmtKind::Exit(_)
            | StmtKind::Cycle(_)
            | StmtKind::Goto(_)
            | StmtKind::Continue
            | StmtKind::Return => Ok(()),
        }
    }
}

impl Expr {
    /// Applies `f` to this expression and every expression inside it,
    /// the inner ones first.
    pub fn walk_mut(&mut self, f: VisitMut<Expr>) -> FrontResult<()> {
        match self {
            Expr::Lit(..) | Expr::Name(..) => {}
            Expr::Apply { args, .. } => args.iter_mut().try_for_each(|a| a.value.walk_mut(f))?,
            Expr::Member { base, args, .. } => {
                base.walk_mut(f)?;
                args.iter_mut()
                    .flatten()
                    .try_for_each(|a| a.value.walk_mut(f))?;
            }
            Expr::Unary(_, x, _) | Expr::Paren(x, _) => x.walk_mut(f)?,
            Expr::Binary(_, a, b, _) => {
                a.walk_mut(f)?;
                b.walk_mut(f)?;
            }
            Expr::Range { lo, hi, stride, .. } => {
                for x in [lo, hi, stride].into_iter().flatten() {
                    x.walk_mut(f)?;
                }
            }
            Expr::ArrayCtor(items, _) => items.iter_mut().try_for_each(|x| x.walk_mut(f))?,
            Expr::ImpliedDo { items, control, .. } => {
                items.iter_mut().try_for_each(|x| x.walk_mut(f))?;
                control.lo.walk_mut(f)?;
                control.hi.walk_mut(f)?;
                if let Some(s) = &mut control.step {
                    s.walk_mut(f)?;
                }
            }
        }
        f(self)
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum UnitKind {
    Program,
    Module,
    Subroutine,
    Function,
    BlockData,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Unit {
    pub kind: UnitKind,
    pub name: String,
    pub params: Vec<String>,
    /// Function result name (the function name unless `result(r)`).
    pub result: Option<String>,
    /// Type given in a function prefix (`real*8 function f(x)`).
    pub result_type: Option<TypeSpec>,
    /// `recursive`, `pure`, `elemental` prefixes, kept for the header.
    pub prefixes: Vec<String>,
    pub spec: Vec<SpecStmt>,
    pub body: Vec<Stmt>,
    pub contains: Vec<Unit>,
    pub span: Span,
    /// Line of the `end` statement (pragmas between `span` and here belong
    /// to this unit).
    pub end_line: usize,
    /// What the parser's rewrite of `associate` and `block` left for the
    /// semantic model.
    pub construct_locals: ConstructLocals,
    /// Entities declared `class(t)`: read as `type(t)`, which is exact
    /// when no type extends `t` (`type_bound.rs` checks that).
    pub polymorphic: Vec<(String, Span)>,
}

/// Names the parser's rewrite of `associate` and `block` constructs
/// introduced or relied on (`parse/constructs.rs`), for the semantic model
/// to type and check.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ConstructLocals {
    /// Variables holding the expression selectors of `associate`, typed
    /// from the value assigned to them before the construct's body.
    pub associate_temps: Vec<(String, Span)>,
    /// Names at the head of designator selectors: they must be variables
    /// (the parser cannot tell an element from a function reference).
    pub selector_names: Vec<(String, Span)>,
    /// Locals of `block` constructs under their hoisted names (their
    /// bounds must be specification expressions of the procedure).
    pub block_locals: Vec<(String, Span)>,
    /// Selectors `name(args)` that are a function reference or an element
    /// or section, which the parser cannot tell apart: the construct's
    /// body reads the variable `temp`, assigned the selector before it;
    /// the semantic model keeps that for a function and substitutes the
    /// selector back for a variable (`construct_locals.rs`).
    pub maybe_function_selectors: Vec<MaybeFunctionSelector>,
}

/// An `associate` selector `name(args)` (`ConstructLocals`).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct MaybeFunctionSelector {
    pub temp: String,
    pub head: String,
    pub selector: Option<Expr>,
    pub span: Span,
}

/// One input file after parsing.
#[derive(Debug, Clone, PartialEq)]
pub struct SourceFile {
    pub units: Vec<Unit>,
}
