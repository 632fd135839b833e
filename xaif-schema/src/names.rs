//! Spellings of the enumerated attribute values, shared by reader and
//! writer so the two cannot disagree.

use crate::model::*;

pub(crate) const SYMBOL_KINDS: &[(&str, SymbolKind)] = &[
    ("subroutine", SymbolKind::Subroutine),
    ("variable", SymbolKind::Variable),
    ("pointer", SymbolKind::Pointer),
];

pub(crate) const SYMBOL_TYPES: &[(&str, SymbolType)] = &[
    ("void", SymbolType::Void),
    ("integer", SymbolType::Integer),
    ("real", SymbolType::Real),
    ("complex", SymbolType::Complex),
    ("bool", SymbolType::Bool),
    ("char", SymbolType::Char),
    ("string", SymbolType::String),
    ("opaque", SymbolType::Opaque),
];

pub(crate) const SYMBOL_SHAPES: &[(&str, SymbolShape)] = &[
    ("void", SymbolShape::Void),
    ("scalar", SymbolShape::Scalar),
    ("vector", SymbolShape::Vector),
    ("matrix", SymbolShape::Matrix),
    ("three_tensor", SymbolShape::ThreeTensor),
    ("four_tensor", SymbolShape::FourTensor),
    ("five_tensor", SymbolShape::FiveTensor),
    ("six_tensor", SymbolShape::SixTensor),
    ("seven_tensor", SymbolShape::SevenTensor),
];

pub(crate) const INTENTS: &[(&str, Intent)] = &[
    ("in", Intent::In),
    ("out", Intent::Out),
    ("inout", Intent::InOut),
];

pub(crate) const ACTIVE_USES: &[(&str, ActiveUse)] = &[
    ("undefined", ActiveUse::Undefined),
    ("true", ActiveUse::True),
    ("false", ActiveUse::False),
];

pub(crate) const CONSTANT_TYPES: &[(&str, ConstantType)] = &[
    ("real", ConstantType::Real),
    ("double", ConstantType::Double),
    ("integer", ConstantType::Integer),
    ("bool", ConstantType::Bool),
    ("char", ConstantType::Char),
    ("string", ConstantType::String),
];

pub(crate) const BOOLEAN_OPS: &[(&str, BooleanOp)] = &[
    ("less_than", BooleanOp::LessThan),
    ("less_or_equal", BooleanOp::LessOrEqual),
    ("greater_than", BooleanOp::GreaterThan),
    ("greater_or_equal", BooleanOp::GreaterOrEqual),
    ("equal", BooleanOp::Equal),
    ("not_equal", BooleanOp::NotEqual),
    ("and", BooleanOp::And),
    ("or", BooleanOp::Or),
    ("not", BooleanOp::Not),
    ("xor", BooleanOp::Xor),
];

pub(crate) const REVERSALS: &[(&str, ForLoopReversal)] = &[
    ("explicit", ForLoopReversal::Explicit),
    ("anonymous", ForLoopReversal::Anonymous),
];

/// Allowed `xaifii:Function/@type` values.
pub(crate) const FUNCTION_TYPES: &[&str] = &["builtin", "user_defined"];
/// Allowed `xaifii:Partial/@partial_type` values.
pub(crate) const PARTIAL_TYPES: &[&str] = &[
    "passive",
    "linear_one",
    "linear_minus_one",
    "linear",
    "nonlinear",
];
/// Allowed `xaifii:InlinableIntrinsic/@shapeChange` values.
pub(crate) const SHAPE_CHANGES: &[&str] = &["no_change", "scalar", "rank"];
/// Allowed `xaifii:InlinableIntrinsicDefinitions/@language` values.
pub(crate) const LANGUAGES: &[&str] = &["C", "CPP", "F77", "F90", "F95"];

/// The spelling of an enumeration value.
pub(crate) fn name_of<T: PartialEq + Copy>(table: &[(&'static str, T)], value: T) -> &'static str {
    table
        .iter()
        .find(|(_, v)| *v == value)
        .map(|(n, _)| *n)
        .expect("every enumeration value has a spelling in its table")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spellings_are_the_schema_ones() {
        assert_eq!(
            name_of(SYMBOL_SHAPES, SymbolShape::ThreeTensor),
            "three_tensor"
        );
        assert_eq!(name_of(INTENTS, Intent::InOut), "inout");
        assert_eq!(
            name_of(BOOLEAN_OPS, BooleanOp::GreaterOrEqual),
            "greater_or_equal"
        );
        assert_eq!(name_of(CONSTANT_TYPES, ConstantType::Double), "double");
    }
}
